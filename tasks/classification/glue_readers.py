"""Readers for the GLUE tasks and XNLI, each in its official file layout.

Every task is a table of where its fields sit in each split's TSV file
(tab-separated, no quoting: quotes are text, as in the original readers):

| task  | train / dev columns (label)            | test columns (index) | labels |
| ----- | -------------------------------------- | -------------------- | ------ |
| CoLA  | no header; sentence 3 (1)              | sentence 1 (0)       | 0, 1 |
| SST-2 | sentence 0 (1)                         | sentence 1 (0)       | 0, 1 |
| MRPC  | #1 String 3, #2 String 4 (0); BOM      | 3, 4 (0)             | 0, 1 |
| QQP   | question1 3, question2 4 (5)           | 1, 2 (0)             | 0, 1 |
| STS-B | sentence1 7, sentence2 8 (9)           | 7, 8 (0)             | a score in [0, 5] (regression) |
| MNLI  | sentence1 8, sentence2 9 (last)        | 8, 9 (0)             | contradiction, entailment, neutral |
| QNLI, RTE | 1, 2 (3)                           | 1, 2 (0)             | entailment, not_entailment |
| WNLI  | 1, 2 (3)                               | 1, 2 (0)             | 0, 1 |
| XNLI  | train `multinli/multinli.train.{lang}.tsv` 0, 1 (2); dev/test `xnli.{dev,test}.tsv` 6, 7 (1), rows of one language (column 0) | | contradiction, entailment, neutral |

MNLI has `dev_matched` / `dev_mismatched` and `test_matched` /
`test_mismatched` splits; the others `train`, `dev` and `test`. A leading
byte-order mark is dropped; lines split on "\\n" only, so line numbers in
messages are the ones an editor shows.
"""

import dataclasses
import os

from tasks.classification.examples import BadRowError, ExampleBuilder

BINARY = ("0", "1")
NLI = ("contradiction", "entailment", "neutral")
ENTAILMENT = ("entailment", "not_entailment")


@dataclasses.dataclass(frozen=True)
class TsvLayout:
    """Where one split's fields are: 0-based columns, negative counting from the end."""

    filename: str
    text_a: int
    text_b: int = None
    label: int = None  # None: an unlabelled (test) split
    index: int = None  # the example id column, if the file has one
    header: bool = True
    language: int = None  # XNLI: keep only rows of one language


@dataclasses.dataclass(frozen=True)
class GlueTask:
    name: str
    label_list: tuple  # None for regression
    splits: dict  # split name -> TsvLayout
    label_aliases: dict = dataclasses.field(default_factory=dict)
    label_range: tuple = None  # (low, high) of a regression score
    similarity: bool = False  # the pair's order carries no meaning (GPT's paper: STS-B, MRPC, QQP)

    @property
    def is_regression(self):
        return self.label_list is None


def _standard(text_a, text_b, label, test_a=None, test_b=None, index=None, header=True):
    """train.tsv / dev.tsv with a label column, test.tsv with an index column."""
    test_a = text_a if test_a is None else test_a
    test_b = text_b if test_b is None else test_b
    return {
        "train": TsvLayout("train.tsv", text_a, text_b, label, index, header),
        "dev": TsvLayout("dev.tsv", text_a, text_b, label, index, header),
        "test": TsvLayout("test.tsv", test_a, test_b, index=0),
    }


def _mnli_splits():
    labelled = dict(text_a=8, text_b=9, label=-1, index=0)
    return {
        "train": TsvLayout("train.tsv", **labelled),
        "dev_matched": TsvLayout("dev_matched.tsv", **labelled),
        "dev_mismatched": TsvLayout("dev_mismatched.tsv", **labelled),
        "test_matched": TsvLayout("test_matched.tsv", 8, 9, index=0),
        "test_mismatched": TsvLayout("test_mismatched.tsv", 8, 9, index=0),
    }


def _xnli_splits():
    return {
        "train": TsvLayout("multinli/multinli.train.{language}.tsv", 0, 1, label=2),
        "dev": TsvLayout("xnli.dev.tsv", 6, 7, label=1, language=0),
        "test": TsvLayout("xnli.test.tsv", 6, 7, label=1, language=0),
    }


GLUE_TASKS = {task.name: task for task in (
    GlueTask("cola", BINARY, _standard(3, None, 1, test_a=1, header=False)),
    GlueTask("sst-2", BINARY, _standard(0, None, 1, test_a=1)),
    GlueTask("mrpc", BINARY, _standard(3, 4, 0), similarity=True),
    GlueTask("qqp", BINARY, _standard(3, 4, 5, test_a=1, test_b=2, index=0), similarity=True),
    GlueTask("sts-b", None, _standard(7, 8, 9, index=0), label_range=(0.0, 5.0), similarity=True),
    GlueTask("mnli", NLI, _mnli_splits()),
    GlueTask("qnli", ENTAILMENT, _standard(1, 2, 3, index=0)),
    GlueTask("rte", ENTAILMENT, _standard(1, 2, 3, index=0)),
    GlueTask("wnli", BINARY, _standard(1, 2, 3, index=0)),
    GlueTask("xnli", NLI, _xnli_splits(), label_aliases={"contradictory": "contradiction"}),
)}
_ALIASES = {"sst2": "sst-2", "stsb": "sts-b"}


def glue_task(name):
    """The `GlueTask` for a GLUE / XNLI task name (case-insensitive; "SST-2" or "sst2")."""
    key = name.lower()
    key = _ALIASES.get(key, key)
    if key not in GLUE_TASKS:
        raise ValueError(f"unknown task {name!r}; expected one of {sorted(GLUE_TASKS)} or custom")
    return GLUE_TASKS[key]


def tsv_lines(path):
    """(line number, fields) of each non-empty line; a leading BOM is dropped."""
    with open(path, "rb") as f:
        for number, raw in enumerate(f, start=1):
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            raw = raw.rstrip(b"\n")
            raw = raw[:-1] if raw.endswith(b"\r") else raw
            if not raw:
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise BadRowError(f"{path}:{number}: not UTF-8 ({e.reason} at byte {e.start})")
            yield number, line.split("\t")


class GlueReader:
    """Examples of one GLUE (or XNLI) task from its directory.

    Example:
    >>> reader = GlueReader("MRPC", "glue_data/MRPC")
    >>> data = reader.read("dev")
    >>> data.examples[0].label, len(data.examples)
    ('1', 408)
    """

    def __init__(self, task_name, data_dir, skip_bad_rows=False, language="zh"):
        self.task = glue_task(task_name)
        self.data_dir = data_dir
        self.skip_bad_rows = skip_bad_rows
        self.language = language

    @property
    def name(self):
        return self.task.name

    @property
    def label_list(self):
        return self.task.label_list

    @property
    def is_regression(self):
        return self.task.is_regression

    @property
    def paired(self):
        """Whether examples are sentence pairs (text_b present)."""
        return self.task.splits["train"].text_b is not None

    @property
    def similarity(self):
        """Whether the task compares two texts whose order carries no meaning
        (paraphrase, semantic similarity): a family whose text side encodes such
        pairs in both orders does so (`TextSide.similarity_in_both_orders`)."""
        return self.task.similarity

    @property
    def eval_splits(self):
        return tuple(s for s in self.task.splits if s.startswith("dev"))

    @property
    def test_splits(self):
        return tuple(s for s in self.task.splits if s.startswith("test"))

    def path(self, split):
        if split not in self.task.splits:
            raise ValueError(f"task {self.name} has no split {split!r}; "
                             f"expected one of {list(self.task.splits)}")
        filename = self.task.splits[split].filename.format(language=self.language)
        return os.path.join(self.data_dir, filename)

    def read(self, split):
        """`SplitData` of `split`; raises `BadRowError` on a bad row unless
        skipping, and when no example is left."""
        path, layout = self.path(split), self.task.splits[split]
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{self.name} {split} file not found: {path!r}")
        builder = ExampleBuilder(self.label_list, self.skip_bad_rows, self.task.label_range)
        lines = tsv_lines(path)
        if layout.header:
            next(lines, None)
        examples = []
        for number, fields in lines:
            example = self._example(builder, layout, split, f"{path}:{number}", fields,
                                    len(examples))
            if example is not None:
                examples.append(example)
        return builder.finish(path, examples)

    def _example(self, builder, layout, split, source, fields, count):
        def column(index, name):
            if -len(fields) <= index < len(fields):
                return fields[index]
            raise IndexError(f"missing column {index} ({name}): the row has {len(fields)} columns")

        try:
            if layout.language is not None and column(layout.language, "language") != self.language:
                return None
            text_a = column(layout.text_a, "text_a")
            text_b = None if layout.text_b is None else column(layout.text_b, "text_b")
            label = None if layout.label is None else column(layout.label, "label").strip()
            guid = (column(layout.index, "index").strip() if layout.index is not None
                    else f"{split}-{count}")
        except IndexError as e:
            return builder.reject(source, str(e))
        label = self.task.label_aliases.get(label, label)
        return builder.build(source, guid, text_a, text_b, label,
                             labelled=layout.label is not None, paired=layout.text_b is not None)
