"""How many of a task's dev examples a family's text side cuts at the tier's
sequence length: a sentence task whose inputs are cut short measures the cut
(the words a sentiment or similarity turns on may be past it), so the report
shows the share beside each task. Token-level tasks slide windows over long
sentences, so for them it is the share of sentences that need a second window."""

import json
import os


def _texts(task, directory):
    """Each dev example's texts: (a,) or (a, b); a multiple choice's every (context, ending)."""
    files = task.files
    path = os.path.join(directory, "dev" + files.extension)
    if files.extension == ".tsv":
        with open(path, encoding="utf-8-sig") as f:
            rows = [line.rstrip("\n").split("\t") for line in f.read().split("\n")[1:] if line.strip()]
        return [[tuple(row[c] for c in files.text_columns)] for row in rows]
    if files.extension == ".jsonl":
        with open(path, encoding="utf-8") as f:
            records = [json.loads(line) for line in f if line.strip()]
        return [[(r["context"], ending) for ending in r["endings"]] for r in records]
    if files.extension == ".txt":
        with open(path, encoding="utf-8") as f:
            blocks = [b for b in f.read().split("\n\n") if b.strip() and not b.startswith("-DOCSTART-")]
        return [[(" ".join(line.split(" ")[0] for line in b.strip("\n").split("\n")),)] for b in blocks]
    return None  # SQuAD: windows over the paragraph, as the token tasks


def _length(text_side, texts):
    ids = [text_side.encode(text) for text in texts]
    return sum(len(i) for i in ids) + text_side.num_specials(ids[1] if len(ids) > 1 else None)


def truncated_share(task, directory, text_side, seq_length):
    """The share (0-1) of `task`'s dev examples longer than `seq_length` for `text_side`, or None."""
    examples = _texts(task, directory)
    if not examples:
        return None
    cut = sum(any(_length(text_side, texts) > seq_length for texts in example) for example in examples)
    return cut / len(examples)
