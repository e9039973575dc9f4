"""The main job's fine-tuning protocol: each arm (from pretrained, from scratch)
gets the learning rate that did best on a slice held out of the labelled train
split, among those whose run trained (its loss left the label prior and it fit
its training data: `training.label_prior`), so that the from-scratch floor is
trained as well as the pretrained arm is and neither is scored before it has
started learning. The dev set it is scored on is never looked at.

At one shared rate of 1e-4 the from-scratch arm's training loss stayed at
ln 2 for all its 100 steps: the comparison was of a trained model with one
that had not started.
"""

import csv
import os
import random

from demo.pretrained import read_key_values
from training.label_prior import fits, left_prior
from utils.files import atomic_output

RATES = (1e-4, 1e-3, 3e-3)
SLICE = 0.2


def write_selection_split(source_dir, target_dir, seed, fraction=SLICE):
    """`train.tsv` and `dev.tsv` in `target_dir`: `source_dir`'s train rows, a
    seeded `fraction` of them held out as the selection's dev; returns the counts."""
    with open(os.path.join(source_dir, "train.tsv"), encoding="utf-8") as f:
        header, *rows = [line for line in f.read().split("\n") if line.strip()]
    held = set(random.Random(seed).sample(range(len(rows)), max(1, round(fraction * len(rows)))))
    parts = {"train": [r for i, r in enumerate(rows) if i not in held],
             "dev": [r for i, r in enumerate(rows) if i in held]}
    for split, part in parts.items():
        with atomic_output(os.path.join(target_dir, f"{split}.tsv")) as out:
            out.write("\n".join([header, *part]) + "\n")
    return {split: len(part) for split, part in parts.items()}


def majority_share(data_dir):
    """The accuracy in points of predicting `data_dir`'s most frequent train label everywhere."""
    with open(os.path.join(data_dir, "train.tsv"), encoding="utf-8") as f:
        labels = [row["label"] for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)]
    return 100.0 * max(map(labels.count, set(labels))) / len(labels)


def trained(results, chance):
    """Whether a run's results left the label prior and fit its training data
    (`train_split_accuracy`, `--eval_train`) well above `chance` (points)."""
    accuracy = results.get("train_split_accuracy")
    return left_prior(results) and isinstance(accuracy, float) and fits(100.0 * accuracy, chance)


def sweep_rows(path):
    """The rows of a runner's `sweep_results.txt`, numbers read as floats."""
    with open(path, encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [{k: _number(v) for k, v in row.items()} for row in rows]


def selection_rows(output_dir, rates):
    """A selection run's rows, as `sweep_rows`: a runner given one rate runs
    it alone and writes its `eval_results.txt`, no sweep table; that one row
    is ranked against nothing, so its `score` (the runner's, not written) is 0."""
    if len(rates) > 1:
        return sweep_rows(os.path.join(output_dir, "sweep_results.txt"))
    results = read_key_values(os.path.join(output_dir, "eval_results.txt"))
    return [{**results, "learning_rate": rates[0], "score": 0.0}]


def _number(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return value


def chosen_rate(rows, chance):
    """(the rate of the best-scoring row that `trained` above `chance`, whether
    one did); with none, the best-scoring rate, so the arm still runs and the
    summary says it did not train."""
    passed = [row for row in rows if trained(row, chance)]
    best = max(passed or rows, key=lambda row: row["score"])
    return best["learning_rate"], bool(passed)
