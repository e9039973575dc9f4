"""Batches without tokens, as batched serving sends them (blank rows): the
encoder and ELMo's task models give outputs of the batch's shape, zero where
there are no tokens, eagerly, traced and through a classifier SavedModel's
`serve_ids`, instead of failing on a sequence of no steps. (The TF Hub
module's signatures: `test_hub_module.py`.)"""

import os
import sys

import numpy as np
import pytest
import tensorflow as tf

from contracts.registry import text_side_for
from families.elmo.config import ELMoConfig
from families.elmo.encoder import ELMoEncoder
from tasks.classification.model import FeatureBasedClassifier
from tasks.classification.serving import save_classification
from tasks.question_answering.model import FeatureBasedSpanLabeler
from tasks.tagging.model import FeatureBasedTokenClassifier
from tests import warm_python
from tests.conftest import ROOT

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


# The encoder over the empty shapes, traced, in a process of its own (TensorFlow reads
# TF_ENABLE_ONEDNN_OPTS once, at start).
_EMPTY_BATCHES = f"""
import numpy as np, tensorflow as tf
from families.elmo.config import ELMoConfig
from families.elmo.encoder import ELMoEncoder
encoder = tf.function(ELMoEncoder(ELMoConfig.from_preset("elmo_tiny")))
for batch, seq in {SHAPES}:
    out = encoder({{"input_char_ids": tf.zeros([batch, seq, 50], tf.int32),
                    "input_mask": tf.zeros([batch, seq], tf.int32)}})["sequence_output"]
    assert out.shape == (batch, seq, {HIDDEN}) and not np.any(out), (batch, seq, out.shape)
"""


def test_rows_without_tokens_where_tensorflow_turns_onednn_on():
    """TensorFlow turns its oneDNN kernels on by default only on some CPUs (AVX-512
    VNNI, bf16, AMX), and their convolution answers a batch of no tokens with its
    input's shape: the character CNN must not depend on which host runs it."""
    env = {**os.environ, "TF_ENABLE_ONEDNN_OPTS": "1", "CUDA_VISIBLE_DEVICES": ""}
    proc = warm_python.run([sys.executable, "-c", _EMPTY_BATCHES], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]


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
