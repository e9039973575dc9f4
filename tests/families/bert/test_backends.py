"""The same weights give the same outputs under the TensorFlow and JAX backends."""

import os
import subprocess
import sys

import numpy as np
import pytest

from checkpoints.ours import save_weights
from families.bert.config import BertConfig
from families.bert.encoder import BertEncoder
from tests.conftest import ROOT

pytest.importorskip("jax")


@pytest.mark.parametrize("causal_attention", [False, True])
def test_tensorflow_and_jax_backends_agree(tmp_path, causal_attention):
    config = BertConfig(vocab_size=120, hidden_size=48, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=96, max_position_embeddings=64,
                        causal_attention=causal_attention)
    encoder = BertEncoder(config)
    save_weights(encoder, str(tmp_path / "weights"))
    rng = np.random.default_rng(0)
    mask = np.ones((3, 16), np.int32)
    mask[1, 10:] = 0
    inputs = {"input_word_ids": rng.integers(0, 120, (3, 16)).astype(np.int32), "input_mask": mask,
              "input_type_ids": rng.integers(0, 2, (3, 16)).astype(np.int32)}
    np.savez(tmp_path / "inputs.npz", **inputs)
    script = os.path.join(ROOT, "tests", "backend_forward.py")
    outputs = {}
    for backend in ("tensorflow", "jax"):
        out = tmp_path / f"{backend}.npz"
        subprocess.run([sys.executable, script, str(tmp_path / "weights"), str(tmp_path / "inputs.npz"),
                        str(out)], check=True,
                       env={**os.environ, "KERAS_BACKEND": backend, "TF_CPP_MIN_LOG_LEVEL": "2",
                            "JAX_PLATFORMS": "cpu"})
        outputs[backend] = np.load(out)
        assert str(outputs[backend]["backend"]) == backend
    valid = mask.astype(bool)
    np.testing.assert_allclose(outputs["tensorflow"]["sequence_output"][valid],
                               outputs["jax"]["sequence_output"][valid], atol=1e-5)
    np.testing.assert_allclose(outputs["tensorflow"]["pooled_output"], outputs["jax"]["pooled_output"],
                               atol=1e-5)
    in_process = encoder(inputs)
    np.testing.assert_allclose(np.asarray(in_process["sequence_output"])[valid],
                               outputs["jax"]["sequence_output"][valid], atol=1e-5)
