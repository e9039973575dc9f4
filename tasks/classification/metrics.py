"""GLUE's metrics, computed by scikit-learn and scipy rather than by hand:
accuracy; F1 of the positive class ("1") with accuracy for MRPC and QQP;
Matthews correlation for CoLA; Pearson and Spearman correlation, reported
separately, for STS-B (and any regression task).

Each task's `selection_score` (the mean of its reported metrics, as the GLUE
leaderboard averages them) picks the best run of a learning-rate sweep.
"""

import math

import numpy as np
from scipy import stats
from sklearn import metrics as sk_metrics


def accuracy(labels, predictions):
    return float(sk_metrics.accuracy_score(labels, predictions))


def f1(labels, predictions):
    """F1 of class 1 (the "paraphrase" / "duplicate" class of MRPC and QQP)."""
    return float(sk_metrics.f1_score(labels, predictions, pos_label=1, average="binary",
                                     zero_division=0.0))


def matthews_corrcoef(labels, predictions):
    return float(sk_metrics.matthews_corrcoef(labels, predictions))


def _correlation(function, labels, scores):
    labels, scores = np.asarray(labels, np.float64), np.asarray(scores, np.float64)
    if labels.size < 2 or np.ptp(labels) == 0 or np.ptp(scores) == 0:
        return math.nan  # undefined for a constant input
    return float(function(labels, scores)[0])


def pearson(labels, scores):
    return _correlation(stats.pearsonr, labels, scores)


def spearman(labels, scores):
    return _correlation(stats.spearmanr, labels, scores)


CLASSIFICATION_METRICS = {"accuracy": accuracy, "f1": f1, "mcc": matthews_corrcoef}
REGRESSION_METRICS = {"pearson": pearson, "spearman": spearman}

# Reported metrics per task, as on the GLUE leaderboard; other tasks report accuracy.
TASK_METRICS = {
    "cola": ("mcc", "accuracy"),
    "mrpc": ("f1", "accuracy"),
    "qqp": ("f1", "accuracy"),
    "sts-b": ("pearson", "spearman"),
}
# Metrics that enter the selection score; by default all reported ones.
SELECTION_METRICS = {"cola": ("mcc",)}


def task_metric_names(task_name, is_regression):
    if is_regression:
        return tuple(REGRESSION_METRICS)
    return TASK_METRICS.get(task_name, ("accuracy",))


def compute_metrics(task_name, is_regression, labels, predictions):
    """{metric: value} of `task_name` from label ids (or scores, for regression)
    and predicted ids (or scores)."""
    functions = {**CLASSIFICATION_METRICS, **REGRESSION_METRICS}
    return {name: functions[name](labels, predictions)
            for name in task_metric_names(task_name, is_regression)}


def selection_score(task_name, is_regression, results, prefix=""):
    """Mean of the selection metrics in `results` (keys `prefix + name`);
    -inf when one is undefined (NaN), so such a run is never preferred."""
    names = SELECTION_METRICS.get(task_name, task_metric_names(task_name, is_regression))
    values = [results[prefix + name] for name in names]
    return -math.inf if any(math.isnan(v) for v in values) else float(np.mean(values))
