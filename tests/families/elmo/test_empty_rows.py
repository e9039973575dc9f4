"""Batches without tokens, as batched serving sends them (blank rows): the
encoder and ELMo's task models give outputs of the batch's shape, zero where
there are no tokens, eagerly, traced and through a classifier SavedModel's
`serve_ids`, instead of failing on a sequence of no steps. (The TF Hub
module's signatures: `test_hub_module.py`.)"""

import numpy as np
import pytest
import tensorflow as tf

from data.text.families import text_side_for
from export.serving_classification import save_classification
from families.elmo.config import ELMoConfig
from families.elmo.encoder import ELMoEncoder
from modeling.feature_based_models import (FeatureBasedClassifier, FeatureBasedSpanLabeler,
                                           FeatureBasedTokenClassifier)

CONFIG = ELMoConfig.from_preset("elmo_tiny")
HIDDEN = CONFIG.hidden_size
# (batch, seq): no columns, no rows, columns of padding only.
SHAPES = [(2, 0), (0, 3), (2, 3)]
SPECS = {"input_char_ids": tf.TensorSpec([None, None, 50], tf.int32),
         "input_mask": tf.TensorSpec([None, None], tf.int32)}


def empty_inputs(batch, seq):
    return {"input_char_ids": tf.zeros([batch, seq, 50], tf.int32), "input_mask": tf.zeros([batch, seq], tf.int32)}


@pytest.fixture(scope="module")
def encoder():
    return ELMoEncoder(CONFIG)


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("batch,seq", SHAPES)
def test_encoder_gives_zeros_for_rows_without_tokens(encoder, batch, seq, traced):
    call = tf.function(encoder) if traced else encoder
    outputs = call(empty_inputs(batch, seq))
    for layer in outputs["encoder_outputs"] + [outputs["sequence_output"]]:
        assert layer.shape == (batch, seq, HIDDEN) and not np.any(layer)
    assert outputs["pooled_output"].shape == (batch, HIDDEN) and not np.any(outputs["pooled_output"])


def served(model):
    """`model` traced as a SavedModel serves it: batch and length unknown."""
    return tf.function(lambda inputs: model(inputs, training=False), input_signature=[SPECS])


def test_task_models_run_rows_without_tokens(encoder):
    """The task BiLSTMs (and the span labeler's second one) over no steps."""
    token, span = served(FeatureBasedTokenClassifier(encoder, 5)), served(FeatureBasedSpanLabeler(encoder))
    for batch, seq in SHAPES:
        assert token(empty_inputs(batch, seq))["logits"].shape == (batch, seq, 5)
        spans = span(empty_inputs(batch, seq))
        assert spans["start_logits"].shape == spans["end_logits"].shape == (batch, seq)


def test_classifier_saved_model_serves_rows_without_tokens(encoder, tmp_path):
    model = FeatureBasedClassifier(encoder, 2)
    text_side = text_side_for("elmo", None, False)
    loaded = tf.saved_model.load(save_classification(str(tmp_path / "1"), model, text_side, 8, ["no", "yes"]))
    blank = loaded.signatures["serving_default"](text_a=tf.constant(["", "  "]))["probabilities"].numpy()
    for batch, seq in SHAPES:
        served = loaded.signatures["serve_ids"](**empty_inputs(batch, seq))["probabilities"].numpy()
        assert served.shape == (batch, 2)
        # Whatever the padding's length, a row without tokens reads the same.
        np.testing.assert_allclose(served, blank[:batch], rtol=0, atol=1e-6)
