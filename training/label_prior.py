"""The floor of a task's loss: what the best constant predictor (one that
ignores its input) scores on the train split, in the loss the task trains
with. A run whose training loss has not fallen below it learned nothing but
the label prior.

For a cross-entropy the best constant prediction is the labels' own
distribution, and its loss their entropy; a loss that weights the labels of
an example (tagging: each window's mean over its words) weights the
distribution alike. For a squared error it is the mean, and its loss the
variance.

Example:
>>> prior_cross_entropy(np.array([0, 0, 1]))  # -(2/3 ln 2/3 + 1/3 ln 1/3)
0.6365141682948128
"""

import math

import numpy as np

LEFT_PRIOR = 0.9  # a run whose train_loss is not below this times prior_loss stayed at the prior
FIT_SHARE = 0.5  # a run that fit its training data closes this share of the gap from chance to a perfect fit


def left_prior(results):
    """Whether a run's results (`train_loss`, `prior_loss`, as fine-tuning writes
    them) show that it learned more than the label prior."""
    loss, prior = results.get("train_loss"), results.get("prior_loss")
    if loss is None or prior is None or math.isnan(loss):
        return False
    return loss < LEFT_PRIOR * prior


def fits(train_score, chance):
    """Whether a run's score on its own training data (`train_score`, in points,
    100 a perfect fit: the runners' `--eval_train`) closes `FIT_SHARE` of the
    gap between `chance` (the constant prediction's score there) and 100: a
    loss can leave the prior while the model still predicts the majority label."""
    if train_score is None or math.isnan(train_score):
        return False
    return train_score >= chance + FIT_SHARE * (100.0 - chance)


def entropy(totals):
    """Entropy in nats of the distribution proportional to `totals` (>= 0)."""
    totals = np.asarray(totals, np.float64)
    p = totals[totals > 0] / totals.sum()
    return float(-(p * np.log(p)).sum())


def prior_cross_entropy(labels, weights=None):
    """The mean over rows of a cross-entropy summed over `labels` (int [rows]
    or [rows, positions]) times `weights` (same shape; default 1), at the best
    constant distribution: it is the weighted labels' distribution, and the
    loss its entropy times the mean weight of a row (rows of weight 0 add
    nothing but count)."""
    labels = np.asarray(labels)
    weights = np.ones(labels.shape) if weights is None else np.asarray(weights, np.float64)
    if not labels.size:
        raise ValueError("no labels to take a prior from")
    totals = np.bincount(labels.ravel(), weights.ravel())
    return float(weights.sum() / len(labels)) * entropy(totals)


def prior_squared_error(values):
    """The mean squared error of the mean: the values' variance."""
    values = np.asarray(values, np.float64)
    if not values.size:
        raise ValueError("no labels to take a prior from")
    return float(values.var())
