"""XLNetBackbone as exports and input pipelines use it: traced with unknown batch
and length, and clear errors for inputs it cannot take."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from families.xlnet.backbone import XLNetBackbone
from families.xlnet.lm_head import XLNetLMHead
from tests.families.xlnet.cases import TINY, permutation_inputs
from tests.families.xlnet.tolerance import float32_bound


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


def test_runs_under_mixed_bfloat16():
    """Keras casts float call arguments (the masks too) to bfloat16; scores, masking
    and softmax still run in float32. The worst-case bound of `tolerance` with
    bfloat16's unit roundoff 2**-9 in place of float32's."""
    config = TINY.replace(dropout=0.0, dropatt=0.0, mem_len=4)
    inputs, _ = permutation_inputs(np.random.default_rng(0))
    full = XLNetBackbone(config)
    reference = np.asarray(full(inputs)["query_output"])
    mixed = XLNetBackbone(config, dtype="mixed_bfloat16")
    mixed.build()
    mixed.set_weights(full.get_weights())
    out = mixed(inputs)
    assert out["query_output"].dtype == "bfloat16" and out["new_mems"][0].dtype == "bfloat16"
    bound = float32_bound(config, 10, reference) * 2.0 ** (24 - 9)
    assert np.abs(np.asarray(out["query_output"], np.float32) - reference).max() <= bound


def test_task_models_build_on_it_functionally():
    """Heads are stacked on symbolic `keras.Input`s, as the BERT task models are."""
    config = TINY.replace(dropout=0.0, dropatt=0.0)
    backbone = XLNetBackbone(config)
    inputs, _ = permutation_inputs(np.random.default_rng(1))
    symbolic = {k: keras.Input((None,) * (v.ndim - 1), dtype=str(v.dtype), name=k) for k, v in inputs.items()}
    head = XLNetLMHead(backbone.word_embedding)
    model = keras.Model(symbolic, head(backbone(symbolic)["query_output"]))
    direct = head(backbone(inputs)["query_output"])
    np.testing.assert_array_equal(np.asarray(model(inputs)), np.asarray(direct))
