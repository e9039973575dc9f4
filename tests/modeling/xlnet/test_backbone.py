"""XLNetBackbone as exports and input pipelines use it: traced with unknown batch
and length, and clear errors for inputs it cannot take."""

import numpy as np
import pytest
import tensorflow as tf

from modeling.xlnet import XLNetBackbone
from tests.modeling.xlnet.cases import TINY, permutation_inputs
from tests.modeling.xlnet.tolerance import float32_bound


@pytest.mark.parametrize("config", [TINY, TINY.replace(bi_data=True, mem_len=4)], ids=["bi", "bi_data"])
def test_a_trace_with_unknown_shapes_equals_eager(config):
    config = config.replace(dropout=0.0, dropatt=0.0)
    backbone = XLNetBackbone(config)
    inputs, _ = permutation_inputs(np.random.default_rng(0))
    eager = backbone(inputs)
    spec = {k: tf.TensorSpec([None] * v.ndim, tf.as_dtype(v.dtype)) for k, v in inputs.items()}
    traced = tf.function(lambda x: backbone(x), input_signature=[spec])(inputs)
    for key in ("sequence_output", "query_output"):
        reference = np.asarray(eager[key])
        # Graph and eager may fuse differently: the same float32 bound as between implementations.
        assert np.abs(np.asarray(traced[key]) - reference).max() <= float32_bound(config, 10, reference)


def test_bi_data_with_an_odd_batch_is_refused():
    backbone = XLNetBackbone(TINY.replace(bi_data=True))
    with pytest.raises(ValueError, match="bi_data needs an even batch size"):
        backbone({"input_ids": np.zeros((3, 5), np.int32)})


def test_mems_for_the_wrong_number_of_layers_are_refused():
    backbone = XLNetBackbone(TINY)
    with pytest.raises(ValueError, match="mems: expected 2 tensors"):
        backbone({"input_ids": np.zeros((2, 5), np.int32)}, mems=[np.zeros((2, 3, 32), np.float32)])
