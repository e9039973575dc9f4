"""Real sentences from the shared data directory (DESIGN.md "Data you have"),
drawn reproducibly per source: what the GPT tokenizer fixture was recorded on
and what the graph tokenizer's agreement is measured on."""

import glob
import json
import os
import random

# GLUE file -> (has a header line, columns holding sentences).
GLUE_COLUMNS = {"CoLA": (False, (3,)), "SST-2": (True, (0,)), "MRPC": (True, (3, 4)),
                "RTE": (True, (1, 2)), "WNLI": (True, (1, 2)), "STS-B": (True, (7, 8))}


def _glue(data_dir, task, split):
    header, columns = GLUE_COLUMNS[task]
    with open(os.path.join(data_dir, "glue", task, f"{split}.tsv"), encoding="utf-8-sig") as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1 if header else 0:]
    return [row[c] for row in rows for c in columns if len(row) > c and row[c].strip()]


def _conll(data_dir, split):
    """Sentences of a CoNLL-2003 file, its words joined by spaces."""
    sentences, words = [], []
    with open(os.path.join(data_dir, "conll2003", f"{split}.txt"), encoding="utf-8") as f:
        for line in list(f) + [""]:
            if line.strip() and not line.startswith("-DOCSTART-"):
                words.append(line.split()[0])
            elif words:
                sentences.append(" ".join(words))
                words = []
    return sentences


def _squad(data_dir):
    """(questions, contexts) of the shared SQuAD files."""
    questions, contexts = [], []
    for path in sorted(glob.glob(os.path.join(data_dir, "squad", "*.json"))):
        with open(path, encoding="utf-8") as f:
            for article in json.load(f)["data"]:
                for paragraph in article["paragraphs"]:
                    contexts.append(paragraph["context"])
                    questions.extend(qa["question"] for qa in paragraph["qas"])
    return questions, contexts


def sources(data_dir, split):
    """{source name: texts} for one split ('train' or 'dev'; SQuAD has dev only)."""
    found = {f"glue/{task}": _glue(data_dir, task, split) for task in GLUE_COLUMNS}
    found["conll2003"] = _conll(data_dir, split)
    if split == "dev":
        found["squad/questions"], found["squad/contexts"] = _squad(data_dir)
    return found


def sample(data_dir, split, per_source, seed=0):
    """Up to `per_source` distinct texts of each source, in a fixed random order."""
    texts = []
    for name, found in sorted(sources(data_dir, split).items()):
        distinct = sorted(set(found))
        texts.extend(random.Random(f"{seed}:{name}").sample(distinct, min(per_source, len(distinct))))
    return texts
