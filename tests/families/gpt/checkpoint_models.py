"""Models with random weights for GPT's checkpoint tests (no released weights
can be downloaded here)."""

import numpy as np

from families.gpt.double_heads import GPTDoubleHeads
from families.gpt.encoder import GPTEncoder
from tests.families.gpt.model_reference import TINY


def random_model(config=TINY, heads=True, seed=0):
    """The encoder (in `GPTDoubleHeads` with `heads`) with every weight drawn
    afresh, so that two layouts can only agree by carrying every value."""
    encoder = GPTEncoder(config)
    model = GPTDoubleHeads(encoder) if heads else encoder
    rng = np.random.default_rng(seed)
    for variable in model.weights:
        variable.assign(rng.normal(0.0, 0.2, variable.shape).astype("float32"))
    return model


def weights_of(model):
    return {v.path: np.asarray(v.numpy()) for v in model.weights}


def assert_same_weights(ours, expected):
    assert sorted(ours) == sorted(expected)
    for path, value in expected.items():
        assert ours[path].dtype == value.dtype and np.array_equal(ours[path], value), path
