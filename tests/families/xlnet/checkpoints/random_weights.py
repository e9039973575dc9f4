"""XLNet backbones and heads with random weights, for the checkpoint tests."""

import numpy as np

from families.xlnet.checkpoints.parts import build_parts
from families.xlnet.checkpoints.tf1_names import LOGIT_SCOPE, TAGGING_SCOPE
from tests.families.xlnet.cases import TINY

ALL_HEADS = {"model/lm_loss/bias": None, f"{LOGIT_SCOPE}/bias": np.zeros(3), f"{TAGGING_SCOPE}/bias": np.zeros(5),
             "start_logits/dense/kernel": None}


def random_parts(config=TINY, heads=ALL_HEADS, seed=0):
    parts = build_parts(config, heads)
    rng = np.random.default_rng(seed)
    for variable in parts.weights:
        variable.assign(0.2 * rng.normal(size=variable.shape).astype(np.float32))
    return parts
