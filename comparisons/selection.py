"""The fine-tuning protocol's two safeguards.

Learning-rate selection, as the papers chose theirs (a grid, best on held-out
data), but on a slice held out from each task's train subset: the dev set
the report scores is never looked at before scoring.

The trainability gate: a run whose training loss has not left the label
prior (the loss of the best constant prediction, which the runner writes as
`prior_loss` beside its `train_loss`) has not started learning; its dev score
would measure the protocol, not the pretraining. Such a run is failed and
retried with the next learning rate, never scored (the runners' own test,
`training.label_prior.left_prior`, decides).
"""

import math


def ranked(outcomes):
    """The learning rates of `outcomes` ({lr: {"score", "trained"}}) that trained,
    best score first (ties: the smaller rate first); an undefined score last."""
    usable = [(lr, o["score"]) for lr, o in outcomes.items() if o["trained"]]
    return [lr for lr, _ in sorted(usable, key=lambda item: (math.isnan(item[1]), -_finite(item[1]), item[0]))]


def _finite(score):
    return -math.inf if math.isnan(score) else score
