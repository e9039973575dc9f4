"""ELMoEncoder: the encoder interface with ELMo's own inputs, rebuilt from its
config, its outputs independent of padding and of the other rows, the same
numbers under JAX as under TensorFlow."""

import os
import sys

import keras
import numpy as np
import pytest

from families.elmo.checkpoints.formats import load_lm_weights
from families.elmo.encoder import ELMoEncoder
from families.elmo.scalar_mix import ScalarMix
from modeling.encoder_interface import check_encoder
from tests import warm_python
from tests.conftest import JAX_CPU
from tests.families.elmo import cases

HERE = os.path.dirname(os.path.abspath(__file__))
SENTENCES = cases.BATCHES[0]


@pytest.fixture(scope="module")
def encoder(elmo_cases):
    encoder = cases.build(cases.CONFIGS["chars"])
    load_lm_weights(encoder, os.path.join(elmo_cases["chars"], "lm_weights.hdf5"))
    return encoder


def test_declares_its_inputs_and_the_interface_outputs(encoder):
    check_encoder(encoder)
    assert set(encoder.input) == {"input_char_ids", "input_mask"}
    assert encoder.input["input_char_ids"].shape == (None, None, 50)
    assert set(encoder.output) == {"sequence_output", "pooled_output", "encoder_outputs"}
    outputs = encoder(cases.inputs(encoder.config, SENTENCES))
    layers = [np.asarray(h) for h in outputs["encoder_outputs"]]
    assert len(layers) == 3 and all(h.shape == (3, 7, 16) for h in layers)
    np.testing.assert_array_equal(np.asarray(outputs["sequence_output"]), layers[-1])
    # pooled_output: the top layer's mean over each row's real tokens.
    lengths = [len(s) for s in SENTENCES]
    expected = np.stack([layers[-1][r, :n].mean(0) for r, n in enumerate(lengths)])
    np.testing.assert_allclose(np.asarray(outputs["pooled_output"]), expected, rtol=1e-6, atol=1e-6)
    # Layer 0 is the token representation twice.
    np.testing.assert_array_equal(layers[0][..., :8], layers[0][..., 8:])


def test_token_variant_takes_word_ids():
    encoder = cases.build(cases.CONFIGS["tokens"])
    assert set(encoder.input) == {"input_word_ids", "input_mask"}
    with pytest.raises(ValueError, match="sentence_boundary_ids"):
        ELMoEncoder(cases.CONFIGS["tokens"])


def test_rebuilds_from_its_config(encoder):
    for again in (ELMoEncoder.from_config(encoder.get_config()),
                  keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(encoder))):
        assert isinstance(again, ELMoEncoder) and again.config == encoder.config
        again.set_weights(encoder.get_weights())
        inputs = cases.inputs(encoder.config, SENTENCES)
        np.testing.assert_array_equal(np.asarray(again(inputs)["sequence_output"]),
                                      np.asarray(encoder(inputs)["sequence_output"]))


def test_padding_and_other_rows_change_nothing(encoder):
    """A row alone, or padded to 12 tokens, gives its own layers, to float32
    noise: matmuls over other numbers of rows take other kernels (1.3e-6 seen
    on values near 1.5); 1e-5, the parity bound, is far below any real change."""
    batch = cases.inputs(encoder.config, SENTENCES)
    together = np.asarray(encoder(batch)["sequence_output"])
    for r, sentence in enumerate(SENTENCES):
        alone = cases.inputs(encoder.config, [sentence])
        padded = {k: np.pad(v, [(0, 0), (0, 12 - v.shape[1])] + [(0, 0)] * (v.ndim - 2))
                  for k, v in alone.items()}
        for inputs in (alone, padded):
            out = np.asarray(encoder(inputs)["sequence_output"])[0, :len(sentence)]
            np.testing.assert_allclose(out, together[r, :len(sentence)], rtol=0, atol=1e-5)


def test_mixed_bfloat16_computes_in_bfloat16(encoder):
    """Variables float32, outputs bfloat16, within bfloat16's precision (8
    significant bits: 2**-8 relative per rounding, a few dozen roundings deep)."""
    mixed = ELMoEncoder(encoder.config, dtype="mixed_bfloat16")
    mixed.set_weights(encoder.get_weights())
    inputs = cases.inputs(encoder.config, SENTENCES)
    out = mixed(inputs)["sequence_output"]
    assert keras.backend.standardize_dtype(out.dtype) == "bfloat16"
    assert {w.dtype for w in mixed.weights} == {"float32"}
    expected = np.asarray(encoder(inputs)["sequence_output"])
    difference = np.abs(np.asarray(keras.ops.cast(out, "float32")) - expected).max()
    assert difference <= 0.05 * np.abs(expected).max()


def test_scalar_mix_trains_on_a_frozen_encoder(encoder):
    """The feature-based use: the biLM frozen, the mix's W and gamma learned."""
    encoder.trainable = False
    inputs = cases.inputs(encoder.config, SENTENCES)
    mix = ScalarMix(do_layer_norm=True, l2_coef=0.001)
    import tensorflow as tf
    with tf.GradientTape() as tape:
        loss = keras.ops.mean(mix(encoder(inputs)["encoder_outputs"], inputs["input_mask"]) ** 2)
    grads = tape.gradient(loss, mix.trainable_weights)
    assert all(g is not None and np.any(np.asarray(g)) for g in grads)
    assert not encoder.trainable_weights
    encoder.trainable = True


def test_jax_backend_matches_tensorflow(elmo_cases, encoder):
    """The character case (the token variant differs by a table lookup only),
    zero-state and stateful, JAX in a subprocess, TensorFlow here."""
    pytest.importorskip("jax")
    warm_python.run([sys.executable, os.path.join(HERE, "backend_forward.py"),
                     os.path.dirname(elmo_cases["chars"]), "chars"],
                    check=True, capture_output=True, timeout=600,
                    env={**os.environ, **JAX_CPU})
    jax_out = np.load(os.path.join(elmo_cases["chars"], "out_jax.npz"))
    stateful = cases.build(cases.CONFIGS["chars"], stateful=True)
    load_lm_weights(stateful, os.path.join(elmo_cases["chars"], "lm_weights.hdf5"))
    ours = {"fresh": cases.run_ours(encoder, **cases.SAME_SHAPE),
            "stateful": cases.run_ours(stateful, **cases.SAME_SHAPE)}
    assert len(jax_out) == 5
    assert jax_out["fresh_empty"].shape == (3, 3, 0, 16)  # sentences without words run too
    for kind, layers in ours.items():
        for k, expected in enumerate(layers):
            # Two float32 programs of other kernels (XLA's tanh and sigmoid are
            # approximations, and the cell state carries their error through
            # every step): 1e-5 of the layer's largest value, about 80 ulps of
            # it; 1.6e-5 at a largest value of 7 seen, far below any real change.
            atol = 1e-5 * np.abs(expected).max()
            np.testing.assert_allclose(jax_out[f"{kind}_{k}"], expected, rtol=0, atol=atol, err_msg=f"{kind} {k}")
    # The stateful second batch is not the zero-state one.
    assert np.abs(jax_out["stateful_1"] - jax_out["fresh_1"]).max() > 0.1
