"""GLUE metrics equal scikit-learn / scipy on random inputs; per-task choice
of metrics, selection score, and the submission file format."""

import math
import os

import numpy as np
import pytest
from scipy import stats
from sklearn import metrics as sk

from tasks.classification import metrics as m
from tasks.classification.submission import SUBMISSION_FILES, submission_file_name, write_submission
from training.learning_rate_sweep import best_run, plan_runs


@pytest.mark.parametrize("seed", range(5))
def test_metrics_equal_sklearn_and_scipy(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 400))
    labels, predictions = rng.integers(0, 2, n), rng.integers(0, 2, n)
    assert m.accuracy(labels, predictions) == pytest.approx(sk.accuracy_score(labels, predictions))
    assert m.f1(labels, predictions) == pytest.approx(sk.f1_score(labels, predictions))
    assert m.matthews_corrcoef(labels, predictions) == pytest.approx(
        sk.matthews_corrcoef(labels, predictions))
    gold3, predicted3 = rng.integers(0, 3, n), rng.integers(0, 3, n)
    assert m.accuracy(gold3, predicted3) == pytest.approx(np.mean(gold3 == predicted3))
    scores, gold = rng.uniform(0, 5, n), rng.uniform(0, 5, n)
    assert m.pearson(gold, scores) == pytest.approx(stats.pearsonr(gold, scores)[0])
    assert m.spearman(gold, scores) == pytest.approx(stats.spearmanr(gold, scores)[0])
    # And the textbook definitions.
    tp = np.sum((labels == 1) & (predictions == 1))
    fp, fn = np.sum((labels == 0) & (predictions == 1)), np.sum((labels == 1) & (predictions == 0))
    tn = n - tp - fp - fn
    denominator = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    mcc = 0.0 if denominator == 0 else (tp * tn - fp * fn) / denominator
    assert m.matthews_corrcoef(labels, predictions) == pytest.approx(mcc)
    assert m.f1(labels, predictions) == pytest.approx(2 * tp / (2 * tp + fp + fn) if tp else 0.0)


def test_degenerate_inputs():
    assert m.matthews_corrcoef([0, 1, 1], [1, 1, 1]) == 0.0
    assert m.f1([0, 0], [0, 0]) == 0.0
    assert math.isnan(m.pearson([1.0, 2.0, 3.0], [2.0, 2.0, 2.0]))
    assert math.isnan(m.spearman([1.0], [1.0]))


def test_task_metrics_and_selection():
    labels, predictions = np.array([1, 0, 1, 1]), np.array([1, 1, 1, 0])
    assert set(m.compute_metrics("mrpc", False, labels, predictions)) == {"f1", "accuracy"}
    assert set(m.compute_metrics("cola", False, labels, predictions)) == {"mcc", "accuracy"}
    assert set(m.compute_metrics("rte", False, labels, predictions)) == {"accuracy"}
    assert set(m.compute_metrics("sts-b", True, [1.0, 2.0, 4.0], [1.5, 2.0, 3.0])) == \
        {"pearson", "spearman"}
    assert m.selection_score("mrpc", False, {"eval_f1": 0.9, "eval_accuracy": 0.8},
                             prefix="eval_") == pytest.approx(0.85)
    assert m.selection_score("cola", False, {"mcc": 0.5, "accuracy": 0.9}) == 0.5
    assert m.selection_score("sts-b", True, {"pearson": math.nan, "spearman": 0.8}) == -math.inf


def test_sweep_plan_and_best():
    single = plan_runs("/out", [2e-5], 1, 7)
    assert [(r.learning_rate, r.seed, r.output_dir) for r in single] == [(2e-5, 7, "/out")]
    runs = plan_runs("/out", [5e-5, 3e-5], 2, 7)
    assert [(r.learning_rate, r.restart, r.seed) for r in runs] == [
        (5e-5, 0, 7), (5e-5, 1, 8), (3e-5, 0, 7), (3e-5, 1, 8)]
    assert runs[3].output_dir == os.path.join("/out", "lr_3e-05_restart_1")
    assert best_run([0.5, math.nan, 0.7, 0.7]) == 2


def test_submission_files(tmp_path):
    assert submission_file_name("mnli", "test_matched") == "MNLI-m.tsv"
    assert submission_file_name("mnli", "test_mismatched") == "MNLI-mm.tsv"
    assert submission_file_name("xnli", "test") == "test_predictions.tsv"
    assert sorted(SUBMISSION_FILES.values()) == sorted(
        f"{t}.tsv" for t in ("CoLA", "SST-2", "MRPC", "QQP", "STS-B", "MNLI-m", "MNLI-mm",
                             "QNLI", "RTE", "WNLI"))
    path = write_submission(str(tmp_path), "rte", "test", ["0", "1"],
                            ["entailment", "not_entailment"])
    assert os.path.basename(path) == "RTE.tsv"
    with open(path, encoding="utf-8") as f:
        assert f.read() == "index\tprediction\n0\tentailment\n1\tnot_entailment\n"
    path = write_submission(str(tmp_path), "sts-b", "test", ["0", "1"], np.array([3.14159, 0.5]))
    with open(path, encoding="utf-8") as f:
        assert f.read() == "index\tprediction\n0\t3.142\n1\t0.500\n"
    with pytest.raises(ValueError, match="2 indices but 1 predictions"):
        write_submission(str(tmp_path), "rte", "test", ["0", "1"], ["entailment"])
