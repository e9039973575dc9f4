"""The task subsets as the non-neural baselines read them, in the layouts the
runners read: GLUE-style TSV (columns from `glue_readers`' table), CoNLL-2003
text (`word POS chunk NER`, one tag column chosen) and multiple-choice JSON
lines (`swag_reader`).

Text is lower-cased (the comparison's one casing policy) and cut into words
by `words`: whitespace tokens with punctuation split off (`\\w+|[^\\w\\s]`), so
raw GLUE text's "pizza." and "pizza" are one word, as they are in SST-2 and
CoNLL-2003, which come tokenized. Bad rows raise the project readers' errors
naming file and line.
"""

import math
import re

from tasks.classification.examples import BadRowError
from tasks.classification.glue_readers import tsv_lines
from tasks.multiple_choice.swag_reader import read_multiple_choice_file
from tasks.tagging.conll_reader import DOCSTART, TaggedFileError

_WORD = re.compile(r"\w+|[^\w\s]")
# Only ASCII blanks separate CoNLL columns, as in data/tagging/conll_reader.py.
_CONLL_COLUMNS = re.compile(r"[ \t]+")


def words(text):
    """The lower-cased words of `text`, punctuation split off."""
    return _WORD.findall(text.lower())


def read_tsv(path, layout, regression):
    """(texts, labels) of a GLUE-style TSV: `texts` holds one list per text
    column of `layout` (a `glue_readers.TsvLayout`: text_a, text_b or None,
    label, header), `labels` a string per row or, for `regression`, a float."""
    columns = [("text_a", layout.text_a)] + ([("text_b", layout.text_b)] if layout.text_b is not None else [])
    texts, labels = [[] for _ in columns], []
    lines = tsv_lines(path)
    if layout.header:
        next(lines, None)
    for number, fields in lines:
        where = f"{path}:{number}"
        for kept, (name, index) in zip(texts, columns):
            kept.append(_field(fields, index, name, where))
        label = _field(fields, layout.label, "label", where).strip()
        labels.append(_score(label, where) if regression else label)
    if not labels:
        raise BadRowError(f"{path}: no examples")
    return texts, labels


def _field(fields, index, name, where):
    if not -len(fields) <= index < len(fields):
        raise BadRowError(f"{where}: missing column {index} ({name}): the row has {len(fields)} columns")
    if not fields[index].strip():
        raise BadRowError(f"{where}: empty {name} (column {index})")
    return fields[index]


def _score(label, where):
    try:
        value = float(label)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise BadRowError(f"{where}: label {label!r} is not a finite number")
    return value


def read_tagged(path, tag_column):
    """Sentences of a CoNLL file as (lower-cased words, tags) pairs: blank
    lines end a sentence, `-DOCSTART-` lines are skipped, `tag_column` (1 or
    more: the word is column 0) picks the tag. Tags are kept as written."""
    if tag_column < 1:
        raise ValueError(f"tag column {tag_column}: column 0 is the word; tags start at column 1")
    sentences, current = [], ([], [])
    with open(path, "rb") as f:
        for number, raw in enumerate(f, start=1):
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8").strip(" \t\r\n")
            except UnicodeDecodeError as e:
                raise TaggedFileError(f"{path}:{number}: not valid UTF-8 ({e.reason})") from None
            columns = _CONLL_COLUMNS.split(line) if line else []
            if not columns or columns[0] == DOCSTART:
                if current[0]:
                    sentences.append(current)
                current = ([], [])
                continue
            if len(columns) <= tag_column:
                raise TaggedFileError(f"{path}:{number}: no tag column {tag_column} in {len(columns)} columns")
            current[0].append(columns[0].lower())
            current[1].append(columns[tag_column])
    if current[0]:
        sentences.append(current)
    if not sentences:
        raise TaggedFileError(f"{path}: no sentences")
    return sentences


def read_choices(path):
    """(choices, labels) of a multiple-choice file: each example's (context,
    ending) pairs (an ending after its `start`, as the runners pair them) and
    its answer's index."""
    examples = read_multiple_choice_file(path).examples
    for example in examples:
        if example.label is None:
            raise ValueError(f"{path}: example {example.example_id!r} has no label")
    return [e.choice_texts() for e in examples], [e.label for e in examples]
