"""A causal BERT (the left-to-right systems' encoder) computes under JAX what it
computes under TensorFlow from the same weights. (The bidirectional encoder's
JAX check is the every-family suite's.)"""

import os
import sys

import keras
import numpy as np
import pytest

from checkpoints.ours import save_weights
from families.bert.config import BertConfig
from families.bert.encoder import BertEncoder
from tests import warm_python
from tests.conftest import JAX_CPU, ROOT

pytest.importorskip("jax")


def test_a_causal_encoder_computes_the_same_under_jax(tmp_path):
    config = BertConfig(vocab_size=120, hidden_size=48, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=96, max_position_embeddings=64, causal_attention=True)
    encoder = BertEncoder(config)
    save_weights(encoder, str(tmp_path / "weights"))
    rng = np.random.default_rng(0)
    mask = np.ones((3, 16), np.int32)
    mask[1, 10:] = 0
    inputs = {"input_word_ids": rng.integers(0, 120, (3, 16)).astype(np.int32), "input_mask": mask,
              "input_type_ids": rng.integers(0, 2, (3, 16)).astype(np.int32)}
    np.savez(tmp_path / "inputs.npz", **inputs)
    out = tmp_path / "jax.npz"
    warm_python.run([sys.executable, os.path.join(ROOT, "tests", "backend_forward.py"), str(tmp_path / "weights"),
                     str(tmp_path / "inputs.npz"), str(out)], check=True,
                    env={**os.environ, **JAX_CPU})
    jax_outputs = np.load(out)
    assert str(jax_outputs["backend"]) == "jax"
    assert keras.backend.backend() == "tensorflow"
    in_process = encoder(inputs)
    valid = mask.astype(bool)
    np.testing.assert_allclose(np.asarray(in_process["sequence_output"])[valid],
                               jax_outputs["sequence_output"][valid], atol=1e-5)
    np.testing.assert_allclose(np.asarray(in_process["pooled_output"]), jax_outputs["pooled_output"], atol=1e-5)
