"""The query stream must not see the token it predicts, nor any token predicted
after it in the factorisation order; the content stream sees its own token."""

import numpy as np

from families.xlnet.backbone import XLNetBackbone
from tests.families.xlnet.cases import QLEN, TINY, permutation_inputs


def test_a_target_token_reaches_only_targets_later_in_the_order():
    rng = np.random.default_rng(7)
    # All but one real token of the padded row are targets: the whole order is checked.
    # (One must stay visible: a query row that sees nothing attends uniformly to
    # everything, in the original as here.)
    inputs, orders = permutation_inputs(rng, num_predict=QLEN - 4)
    backbone = XLNetBackbone(TINY.replace(dropout=0.0, dropatt=0.0, n_layer=3))
    base = backbone(inputs)
    for b in range(inputs["input_ids"].shape[0]):
        targets = np.flatnonzero(inputs["target_mapping"][b].sum(0))
        for k, i in enumerate(targets):
            changed = {key: value.copy() for key, value in inputs.items()}
            changed["input_ids"][b, i] = (changed["input_ids"][b, i] + 1) % TINY.n_token
            out = backbone(changed)
            query_diff = np.abs(np.asarray(out["query_output"]) - np.asarray(base["query_output"]))[b]
            for m, j in enumerate(targets):
                if orders[b, j] <= orders[b, i]:  # i itself, and targets before it: unchanged, exactly
                    assert query_diff[m].max() == 0.0, (b, i, j)
                else:  # later targets see i (directly or through earlier layers)
                    assert query_diff[m].max() > 1e-3, (b, i, j)
            content_diff = np.abs(np.asarray(out["sequence_output"]) - np.asarray(base["sequence_output"]))
            assert content_diff[b, i].max() > 1e-3  # the content stream sees its own token
            other = 1 - b
            assert content_diff[other].max() == 0.0  # rows never mix
