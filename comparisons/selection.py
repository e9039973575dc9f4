"""The fine-tuning protocol's two safeguards.

Learning-rate selection, as the papers chose theirs (a grid, best on held-out
data), but on a slice held out from each task's train subset: the dev set
the report scores is never looked at before scoring.

The trainability gate: a run whose training loss has not left the label
prior (the loss of the best constant prediction, which the runner writes as
`prior_loss` beside its `train_loss`) has not started learning; its dev score
would measure the protocol, not the pretraining. Such a run is failed and
retried with the next learning rate, never scored (the runners' own test,
`training.label_prior.left_prior`, decides). A rate that failed the gate on
the slice (a fifth of the train subset) is still tried on the whole subset
after those that passed: more data may start the learning the slice did not.
"""

import math


def ranked(outcomes):
    """The learning rates of `outcomes` ({lr: {"score", "trained", "train_loss",
    "prior_loss"}}) in the order fine-tuning tries them: those that trained, best
    score first (ties: the smaller rate first; an undefined score last), then
    the others, the one whose training loss fell furthest below its prior first."""
    trained = [(lr, o["score"]) for lr, o in outcomes.items() if o["trained"]]
    order = [lr for lr, _ in sorted(trained, key=lambda item: (math.isnan(item[1]), -_finite(item[1]), item[0]))]
    stuck = [lr for lr, o in outcomes.items() if not o["trained"]]
    return order + sorted(stuck, key=lambda lr: (_fall(outcomes[lr]), lr))


def _fall(outcome):
    """train_loss / prior_loss (lower: further from the prior); inf when either is missing."""
    loss, prior = outcome.get("train_loss"), outcome.get("prior_loss")
    if loss is None or prior is None or math.isnan(loss) or not prior:
        return math.inf
    return loss / prior


def _finite(score):
    return -math.inf if math.isnan(score) else score
