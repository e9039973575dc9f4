"""bf16 GELU and LayerNorm on TensorFlow (XLA-fused) agree with the plain ops in value and gradient."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from modeling.activations import get_activation


@pytest.mark.parametrize("name,approximate", [("gelu", False), ("gelu_new", True)])
def test_bf16_gelu_matches_float32_in_value_and_gradient(name, approximate):
    x32 = tf.constant(np.random.default_rng(0).normal(0, 3, (64, 256)).astype("float32"))
    x16 = tf.cast(x32, tf.bfloat16)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x16, x32])
        y16 = get_activation(name)(x16)
        y32 = keras.activations.gelu(x32, approximate=approximate)
    assert y16.dtype == tf.bfloat16
    np.testing.assert_allclose(tf.cast(y16, tf.float32), y32, rtol=2e-2, atol=2e-2)
    g16 = tape.gradient(y16, x16)
    g32 = tape.gradient(y32, x32)
    np.testing.assert_allclose(tf.cast(g16, tf.float32), g32, rtol=3e-2, atol=3e-2)


def test_float32_gelu_is_the_plain_op_exactly():
    x = tf.constant(np.linspace(-6, 6, 1001, dtype="float32"))
    np.testing.assert_array_equal(get_activation("gelu")(x),
                                  keras.activations.gelu(x, approximate=False))


def test_bf16_layer_norm_matches_keras_layer_normalization():
    from modeling.layer_norm import LayerNorm
    x = tf.constant(np.random.default_rng(1).normal(2, 3, (4, 16, 64)), tf.bfloat16)
    ours = LayerNorm(epsilon=1e-12, dtype="mixed_bfloat16")
    reference = keras.layers.LayerNormalization(epsilon=1e-12, dtype="mixed_bfloat16")
    ours.build(x.shape)
    reference.build(x.shape)
    rng = np.random.default_rng(2)
    gamma_beta = [rng.normal(1, 0.1, 64), rng.normal(0, 0.1, 64)]
    ours.set_weights(gamma_beta)
    reference.set_weights(gamma_beta)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y, y_ref = ours(x), reference(x)
    assert y.dtype == y_ref.dtype == tf.bfloat16
    np.testing.assert_allclose(tf.cast(y, tf.float32), tf.cast(y_ref, tf.float32), atol=2e-2)
    for got, want in zip(tape.gradient(y, [x, *ours.trainable_weights]),
                         tape.gradient(y_ref, [x, *reference.trainable_weights])):
        np.testing.assert_allclose(tf.cast(got, tf.float32), tf.cast(want, tf.float32),
                                   rtol=3e-2, atol=3e-2)


def test_bf16_layer_norm_traces_for_any_shape():
    """Layers of several widths share one compiled function, whose trace then relaxes to
    unknown dimensions, hidden size included."""
    from modeling.layer_norm import LayerNorm
    for batch, length, hidden in [(2, 5, 32), (3, 7, 48), (4, 9, 64), (1, 11, 24)]:
        layer = LayerNorm(epsilon=1e-12, dtype="mixed_bfloat16")
        reference = keras.layers.LayerNormalization(epsilon=1e-12, dtype="mixed_bfloat16")
        layer.build((None, None, hidden))
        reference.build((None, None, hidden))
        x = tf.random.normal((batch, length, hidden), dtype=tf.bfloat16)
        np.testing.assert_allclose(tf.cast(tf.function(layer)(x), tf.float32),
                                   tf.cast(reference(x), tf.float32), atol=2e-2)
