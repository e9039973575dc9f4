"""Multiple-choice examples from SWAG's official CSV files or from JSON lines.

SWAG (Zellers et al., 2018) CSV, one header line then one row per example:

    ,video-id,fold-ind,startphrase,sent1,sent2,gold-source,ending0,ending1,ending2,ending3,label

(test files end at `ending3`, without `label`). `sent1` is the context and
`sent2` the start of the next sentence, which each ending completes; the
example id is `fold-ind`.

JSON lines, for other multiple-choice sets and any number of choices (the
same in every line of a file):

    {"id": "q1", "context": "...", "start": "...", "endings": ["...", "..."], "label": 1}

`context` and `endings` are required; `id` (default: the line number),
`start` (default "") and `label` (a 0-based index; absent for unlabelled
data) are optional.

A bad row (missing ending, wrong number of fields, label out of range, ...)
raises `MultipleChoiceFormatError` naming file, line and field, or with
`skip_bad_rows=True` is skipped and listed in `ChoiceFile.skipped`.
"""

import csv
import dataclasses
import json
import os

from absl import logging

SWAG_CHOICES = 4
SWAG_COLUMNS = ("", "video-id", "fold-ind", "startphrase", "sent1", "sent2", "gold-source",
                *(f"ending{i}" for i in range(SWAG_CHOICES)))
SWAG_LABEL_COLUMN = "label"
_LOGGED_SKIPS = 5


class MultipleChoiceFormatError(ValueError):
    """A file or row that is not valid multiple-choice data; the message names where."""


@dataclasses.dataclass(frozen=True)
class MultipleChoiceExample:
    """Sentence A is `context`; sentence B of choice i is `start` + " " + `endings[i]`."""

    example_id: str
    context: str
    start: str
    endings: tuple
    label: int = None

    def choice_texts(self):
        """The (sentence A, sentence B) pair of every choice."""
        return [(self.context, f"{self.start} {ending}".strip()) for ending in self.endings]


@dataclasses.dataclass
class ChoiceFile:
    path: str
    examples: list
    num_choices: int
    skipped: list  # "path:line: reason" of every row left out under skip_bad_rows

    @property
    def has_labels(self):
        return all(e.label is not None for e in self.examples)


def read_multiple_choice_file(path, skip_bad_rows=False):
    """`ChoiceFile` from a SWAG `.csv` or a `.jsonl` file, chosen by extension."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"multiple-choice file not found: {path!r}")
    extension = os.path.splitext(path)[1].lower()
    if extension == ".csv":
        rows, parse = _swag_rows(path), _swag_example
    elif extension in (".jsonl", ".json"):
        rows, parse = _jsonl_rows(path), _jsonl_example
    else:
        raise MultipleChoiceFormatError(
            f"{path}: unknown extension {extension!r}; expected .csv (SWAG) or .jsonl")
    try:
        return _collect(path, rows, parse, skip_bad_rows)
    except UnicodeDecodeError as e:
        raise MultipleChoiceFormatError(f"{path}: not valid UTF-8 ({e.reason})") from None


def _collect(path, rows, parse, skip_bad_rows):
    """`parse` and validate each `(line, raw row)` into a `ChoiceFile`."""
    examples, skipped, num_choices = [], [], None
    for line, raw in rows:
        try:
            example = parse(raw)
            _validate(example, num_choices)
            num_choices = num_choices or len(example.endings)
            examples.append(example)
        except MultipleChoiceFormatError as e:
            message = f"{path}:{line}: {e}"
            if not skip_bad_rows:
                raise MultipleChoiceFormatError(message) from None
            if len(skipped) < _LOGGED_SKIPS:
                logging.warning("skipping %s", message)
            skipped.append(message)
    if skipped:
        logging.warning("%s: skipped %d bad row(s), kept %d", path, len(skipped), len(examples))
    if not examples:
        raise MultipleChoiceFormatError(f"{path}: no examples")
    return ChoiceFile(path, examples, num_choices, skipped)


def _validate(example, num_choices):
    if len(example.endings) < 2:
        raise MultipleChoiceFormatError(f"needs at least 2 endings, got {len(example.endings)}")
    if num_choices is not None and len(example.endings) != num_choices:
        raise MultipleChoiceFormatError(
            f"has {len(example.endings)} endings, earlier rows have {num_choices}")
    for i, ending in enumerate(example.endings):
        if not isinstance(ending, str) or not ending.strip():
            raise MultipleChoiceFormatError(f"ending {i} is missing or empty")
    label = example.label
    if label is not None and not 0 <= label < len(example.endings):
        raise MultipleChoiceFormatError(
            f"label {label} is out of range for {len(example.endings)} endings")


def _parse_label(value):
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise MultipleChoiceFormatError(f"label {value!r} is not an integer")
    try:
        return int(value)
    except ValueError:
        raise MultipleChoiceFormatError(f"label {value!r} is not an integer") from None


def _swag_rows(path):
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None:
            raise MultipleChoiceFormatError(f"{path}: empty file, expected a SWAG header")
        header = [name.lstrip("\ufeff") for name in header]
        expected = list(SWAG_COLUMNS)
        if header not in (expected, expected + [SWAG_LABEL_COLUMN]):
            raise MultipleChoiceFormatError(
                f"{path}:1: header {','.join(header)!r} is not SWAG's "
                f"{','.join(expected + [SWAG_LABEL_COLUMN])!r} (label column optional)")
        line = reader.line_num + 1
        for fields in reader:
            if fields:
                yield line, (header, fields)
            line = reader.line_num + 1


def _swag_example(raw):
    header, fields = raw
    if len(fields) != len(header):
        raise MultipleChoiceFormatError(f"has {len(fields)} fields, the header has {len(header)}")
    row = dict(zip(header, fields))
    label = None
    if SWAG_LABEL_COLUMN in row:
        if not row[SWAG_LABEL_COLUMN].strip():
            raise MultipleChoiceFormatError("label is empty")
        label = _parse_label(row[SWAG_LABEL_COLUMN].strip())
    return MultipleChoiceExample(
        example_id=row["fold-ind"], context=row["sent1"], start=row["sent2"],
        endings=tuple(row[f"ending{i}"] for i in range(SWAG_CHOICES)), label=label)


def _jsonl_rows(path):
    with open(path, "rb") as f:
        for line, data in enumerate(f, start=1):
            if data.strip():
                yield line, (line, data)


def _jsonl_example(raw):
    line, data = raw
    try:
        record = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise MultipleChoiceFormatError(f"not valid UTF-8 ({e.reason})") from None
    except json.JSONDecodeError as e:
        raise MultipleChoiceFormatError(f"not valid JSON ({e.msg})") from None
    if not isinstance(record, dict):
        raise MultipleChoiceFormatError("expected a JSON object")
    for field in ("context", "endings"):
        if field not in record:
            raise MultipleChoiceFormatError(f"field {field!r} is missing")
    for field, kind in (("context", str), ("start", str), ("endings", list)):
        if field in record and not isinstance(record[field], kind):
            raise MultipleChoiceFormatError(f"field {field!r} is not a {kind.__name__}")
    label = None if record.get("label") is None else _parse_label(record["label"])
    return MultipleChoiceExample(
        example_id=str(record.get("id", line)), context=record["context"],
        start=record.get("start", ""), endings=tuple(record["endings"]), label=label)
