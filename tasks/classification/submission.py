"""Test predictions in the GLUE submission format: one TSV file per task,
named as the benchmark's server expects, with a header and one row per test
example in file order:

    index<TAB>prediction
    0<TAB>entailment
    1<TAB>not_entailment

Predictions are label strings (`0`/`1`, `entailment`, ...) or, for STS-B,
scores with three decimals. MNLI gives two files, MNLI-m (matched) and
MNLI-mm (mismatched). Tasks outside GLUE get `<split>_predictions.tsv` in
the same format.
"""

import os

from utils.files import atomic_output

SUBMISSION_FILES = {
    ("cola", "test"): "CoLA.tsv",
    ("sst-2", "test"): "SST-2.tsv",
    ("mrpc", "test"): "MRPC.tsv",
    ("qqp", "test"): "QQP.tsv",
    ("sts-b", "test"): "STS-B.tsv",
    ("mnli", "test_matched"): "MNLI-m.tsv",
    ("mnli", "test_mismatched"): "MNLI-mm.tsv",
    ("qnli", "test"): "QNLI.tsv",
    ("rte", "test"): "RTE.tsv",
    ("wnli", "test"): "WNLI.tsv",
}
HEADER = "index\tprediction\n"


def submission_file_name(task_name, split):
    return SUBMISSION_FILES.get((task_name, split), f"{split}_predictions.tsv")


def format_prediction(value):
    """A label string as is; a regression score with three decimals."""
    return value if isinstance(value, str) else f"{float(value):.3f}"


def write_submission(output_dir, task_name, split, indices, predictions):
    """Writes `index<TAB>prediction` rows atomically; returns the file's path."""
    if len(indices) != len(predictions):
        raise ValueError(f"{len(indices)} indices but {len(predictions)} predictions")
    path = os.path.join(output_dir, submission_file_name(task_name, split))
    with atomic_output(path) as f:
        f.write(HEADER)
        for index, prediction in zip(indices, predictions):
            f.write(f"{index}\t{format_prediction(prediction)}\n")
    return path
