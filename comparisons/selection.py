"""The fine-tuning protocol's two safeguards.

Learning-rate selection, as the papers chose theirs (a grid, best on held-out
data), but on a slice held out from each task's train subset: the dev set
the report scores is never looked at before scoring.

The trainability gate: a run whose training loss has not left the label
prior (the loss of the best constant prediction, which the runner writes as
`prior_loss` beside its `train_loss`) has not started learning; nor has one
whose score on its own training data (`train_split_<metric>`, the runner's
`--eval_train`) is not well above the constant prediction's there: a loss
can leave the prior while the model still predicts the majority label (an
NER tagger that finds no entity, F1 0 at a loss 0.78 of the prior's). Its dev
score would measure the protocol, not the pretraining. Such a run is failed
and retried with the next learning rate, never scored (the runners' own
tests, `training.label_prior.left_prior` and `fits`, decide; the floor of
`fits` is `comparisons.baselines.chance`). The rates tried are those that
passed the gate on the slice (four fifths of the train subset); where none did, the one whose loss fell furthest is tried once on the
whole subset (a fourth more data may start the learning the slice did not),
not every rate: an arm that cannot train at this tier costs one run, not three.
"""

import math


def ranked(outcomes):
    """The learning rates of `outcomes` ({lr: {"score", "trained", "train_loss",
    "prior_loss"}}) that fine-tuning tries, in order: those that trained, best
    score first (ties: the smaller rate first; an undefined score last); where
    none trained, the one whose training loss fell furthest below its prior."""
    trained = [(lr, o["score"]) for lr, o in outcomes.items() if o["trained"]]
    if not trained:
        return sorted(outcomes, key=lambda lr: (_fall(outcomes[lr]), lr))[:1]
    return [lr for lr, _ in sorted(trained, key=lambda item: (math.isnan(item[1]), -_finite(item[1]), item[0]))]


def _fall(outcome):
    """train_loss / prior_loss (lower: further from the prior); inf when either is missing."""
    loss, prior = outcome.get("train_loss"), outcome.get("prior_loss")
    if loss is None or prior is None or math.isnan(loss) or not prior:
        return math.inf
    return loss / prior


def _finite(score):
    return -math.inf if math.isnan(score) else score
