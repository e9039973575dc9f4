"""Sentence (pair) classification examples, and the one place that decides
whether a row read from a file is good enough to become one.

A row is bad when a column is missing, a text is empty, or its label is not
in the task's label set (or, for regression, not a finite number in the
task's range). A bad row raises `BadRowError` naming file and line, or with
`skip_bad_rows=True` is counted and left out. A file with no example left is
an error too: a split of zero examples would train or score nothing.
"""

import dataclasses
import math

from absl import logging

_LOGGED_SKIPS = 5


class BadRowError(ValueError):
    """A row that cannot become an example; the message starts with `file:line:`."""


@dataclasses.dataclass(frozen=True)
class ClassifierExample:
    """One sentence or sentence pair.

    `guid` is the example's id (the `index` column of GLUE files, which test
    predictions are keyed by); `label` is a label string, a float (regression)
    or None (unlabelled test data); `source` is `file:line`, for messages.
    """

    guid: str
    text_a: str
    text_b: str = None
    label: object = None
    source: str = ""


@dataclasses.dataclass
class SplitData:
    """The examples of one split, the file they came from and the rows left out."""

    path: str
    examples: list
    skipped: list  # `file:line: reason` of each row left out under skip_bad_rows


class ExampleBuilder:
    """Checks fields and builds examples; raises on a bad row or counts it.

    `label_list` is the task's labels, or None for regression, whose scores
    must lie in `label_range` (low, high) when given. `skipped` holds
    `file:line: reason` of every row left out.

    Example:
    >>> builder = ExampleBuilder(("0", "1"), skip_bad_rows=True)
    >>> builder.build("dev.tsv:3", "dev-1", "A sentence.", None, "2")  # skipped: unknown label
    >>> builder.skipped
    ["dev.tsv:3: label '2' is not one of ['0', '1']"]
    """

    def __init__(self, label_list, skip_bad_rows=False, label_range=None):
        self.label_list = None if label_list is None else tuple(label_list)
        self.skip_bad_rows = skip_bad_rows
        self.label_range = label_range
        self.skipped = []

    def reject(self, source, reason):
        """A bad row: raises, or records it and returns None."""
        message = f"{source}: {reason}"
        if not self.skip_bad_rows:
            raise BadRowError(message + " (use --skip_bad_rows to leave such rows out)")
        if len(self.skipped) < _LOGGED_SKIPS:
            logging.warning("skipping bad row %s", message)
        self.skipped.append(message)
        return None

    def build(self, source, guid, text_a, text_b, label, labelled=True, paired=None):
        """The example, or None when the row is bad and skipped.

        `paired` (default: whether `text_b` is given) says the task needs a
        second text; `labelled` says the split carries labels.
        """
        if paired is None:
            paired = text_b is not None
        if text_a is None or not text_a.strip():
            return self.reject(source, "empty text" + (" (first sentence)" if paired else ""))
        if paired and (text_b is None or not text_b.strip()):
            return self.reject(source, "empty text (second sentence)")
        if labelled:
            label = self._check_label(source, label)
            if label is None:
                return None
        else:
            label = None
        return ClassifierExample(guid, text_a, text_b if paired else None, label, source)

    def _check_label(self, source, label):
        text = "" if label is None else str(label).strip()
        if self.label_list is None:
            try:
                value = float(text)
            except ValueError:
                value = math.nan
            if not math.isfinite(value):
                return self.reject(source, f"label {text!r} is not a finite number")
            if self.label_range and not self.label_range[0] <= value <= self.label_range[1]:
                low, high = self.label_range
                return self.reject(source, f"label {text!r} is outside [{low:g}, {high:g}]")
            return value
        if text not in self.label_list:
            return self.reject(source, f"label {text!r} is not one of {list(self.label_list)}")
        return text

    def finish(self, path, examples):
        """The `SplitData` of a file read; raises `BadRowError` when it has no example."""
        if not examples:
            reason = f" ({len(self.skipped)} bad rows skipped)" if self.skipped else ""
            raise BadRowError(f"{path}: no examples{reason}")
        if self.skipped:
            logging.warning("%s: skipped %d bad rows, kept %d examples",
                            path, len(self.skipped), len(examples))
        return SplitData(path, examples, self.skipped)
