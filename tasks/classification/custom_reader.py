"""The `custom` task: the user's own TSV, CSV or JSON-lines files.

`data_dir` holds `train`, `dev` and/or `test` with one extension of `.tsv`
(tab-separated, no quoting, as GLUE), `.csv` (RFC 4180 quoting) or `.jsonl`
(one object per line). TSV and CSV files start with a header naming the
columns; the text, label and id columns are chosen by name:

    sentence<TAB>label          {"premise": "...", "hypothesis": "...", "gold": "yes"}
    A fine film.<TAB>positive

The label set is `label_list` when given, else every label seen in the
training file, sorted. A test file may leave the label column out; an
`id_column` names the column predictions are keyed by (default: row order).
"""

import csv
import json
import os

from tasks.classification.examples import BadRowError, ExampleBuilder
from tasks.classification.glue_readers import tsv_lines

FORMATS = (".tsv", ".csv", ".jsonl")
SPLITS = ("train", "dev", "test")


def find_split_file(data_dir, split):
    """`data_dir/<split>.tsv|.csv|.jsonl`; exactly one must exist."""
    found = [os.path.join(data_dir, split + ext) for ext in FORMATS
             if os.path.isfile(os.path.join(data_dir, split + ext))]
    if len(found) != 1:
        problem = "no file" if not found else "more than one file (" + ", ".join(found) + ")"
        raise FileNotFoundError(f"{problem} for split {split!r} in {data_dir!r}; expected one of "
                                + ", ".join(split + ext for ext in FORMATS))
    return found[0]


def _tsv_records(path):
    lines = tsv_lines(path)
    header = next(lines, (None, None))[1]
    for number, fields in lines:
        yield number, header, fields


def _csv_records(path):
    with open(path, encoding="utf-8-sig", newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        start = reader.line_num + 1
        for fields in reader:
            if fields:
                yield start, header, fields
            start = reader.line_num + 1


def _jsonl_records(path):
    with open(path, encoding="utf-8-sig") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                yield number, None, f"not valid JSON ({e.msg})"
                continue
            if not isinstance(record, dict):
                yield number, None, f"expected a JSON object, got {type(record).__name__}"
                continue
            yield number, None, record


_RECORDS = {".tsv": _tsv_records, ".csv": _csv_records, ".jsonl": _jsonl_records}


class CustomReader:
    """Examples of a user's classification (or regression) data set.

    Example:
    >>> reader = CustomReader("my_data", text_a_column="sentence", label_column="label")
    >>> reader.label_list  # from my_data/train.csv
    ('negative', 'positive')
    >>> reader.read("dev").examples[0]
    ClassifierExample(guid='dev-0', text_a='A fine film.', text_b=None, label='positive', ...)
    """

    name = "custom"
    eval_splits = ("dev",)
    test_splits = ("test",)

    def __init__(self, data_dir, text_a_column, label_column="label", text_b_column=None,
                 id_column=None, label_list=None, regression=False, skip_bad_rows=False,
                 similarity=False):
        if not text_a_column:
            raise ValueError("the custom task needs text_a_column (the name of the text column)")
        if regression and label_list:
            raise ValueError("label_list is for classification; a regression label is a number")
        if similarity and not text_b_column:
            raise ValueError("similarity compares two texts: it needs text_b_column")
        self.data_dir = data_dir
        self.text_a_column = text_a_column
        self.text_b_column = text_b_column or None
        self.label_column = label_column
        self.id_column = id_column or None
        self.is_regression = regression
        self.skip_bad_rows = skip_bad_rows
        self.similarity = similarity  # the pair's order carries no meaning (see GlueReader.similarity)
        self._label_list = tuple(label_list) if label_list else None

    @property
    def paired(self):
        """Whether examples are sentence pairs (text_b present)."""
        return self.text_b_column is not None

    @property
    def label_list(self):
        """The labels, given or collected from the training file; None for regression."""
        if self.is_regression:
            return None
        if self._label_list is None:
            path = find_split_file(self.data_dir, "train")
            labels = set()
            for number, header, record in self._records(path):
                value = self._field(record, header, self.label_column, path, number)
                if value is not None and value.strip():
                    labels.add(value.strip())
            if not labels:
                raise BadRowError(f"{path}: no labels in column {self.label_column!r}")
            self._label_list = tuple(sorted(labels))
        return self._label_list

    def path(self, split):
        if split not in SPLITS:
            raise ValueError(f"task custom has no split {split!r}; expected one of {SPLITS}")
        return find_split_file(self.data_dir, split)

    def _records(self, path):
        records = _RECORDS[os.path.splitext(path)[1]](path)
        for number, header, record in records:
            if isinstance(record, str):
                raise BadRowError(f"{path}:{number}: {record}")
            yield number, header, record

    @staticmethod
    def _field(record, header, column, path, number):
        """The value of `column` in one row, None when the row lacks it."""
        if header is None:
            value = record.get(column)
            return None if value is None else str(value)
        if column not in header:
            raise BadRowError(f"{path}:1: no column {column!r} in the header {header}")
        index = header.index(column)
        return record[index] if index < len(record) else None

    def read(self, split):
        """`SplitData` of `split`; raises `BadRowError` on a bad row unless
        skipping, and when no example is left."""
        path = self.path(split)
        builder = ExampleBuilder(self.label_list, self.skip_bad_rows)
        examples = []
        labelled = None
        for number, header, record in self._records(path):
            source = f"{path}:{number}"
            if labelled is None:  # a test file may have no label column at all
                labelled = split != "test" or (
                    self.label_column in (header if header is not None else record))
            values = {}
            for role, column in (("text_a", self.text_a_column), ("text_b", self.text_b_column),
                                 ("label", self.label_column if labelled else None),
                                 ("id", self.id_column)):
                if column is None:
                    continue
                values[role] = self._field(record, header, column, path, number)
                if values[role] is None:
                    builder.reject(source, f"missing column {column!r}")
                    break
            else:
                guid = values["id"].strip() if "id" in values else f"{split}-{len(examples)}"
                example = builder.build(source, guid, values["text_a"], values.get("text_b"),
                                        values.get("label"), labelled=labelled,
                                        paired=self.text_b_column is not None)
                if example is not None:
                    examples.append(example)
        return builder.finish(path, examples)
