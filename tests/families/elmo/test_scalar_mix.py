"""`ScalarMix` against a direct NumPy transcription of the original's
`weight_layers`: softmax(W + 1/L), gamma, the masked layer norm with one mean
and variance per layer over the batch, L2 on W."""

import keras
import numpy as np
import pytest

from families.elmo.scalar_mix import LAYER_NORM_EPSILON, ScalarMix


def numpy_mix(layers, mask, w, gamma, do_layer_norm):
    s = np.exp(w + 1.0 / len(layers))
    s /= s.sum()
    real = mask[..., None].astype(np.float64)
    out = 0.0
    for weight, h in zip(s, layers):
        h = h.astype(np.float64)
        if do_layer_norm:
            n = real.sum() * h.shape[-1]
            mean = (h * real).sum() / n
            variance = (((h * real - mean) * real) ** 2).sum() / n
            h = (h - mean) / np.sqrt(variance + LAYER_NORM_EPSILON)
        out = out + weight * h
    return gamma * out


@pytest.mark.parametrize("do_layer_norm", [False, True])
def test_matches_numpy(do_layer_norm):
    rng = np.random.default_rng(0)
    layers = [rng.normal(loc=i, scale=1 + i, size=(3, 5, 4)).astype(np.float32) for i in range(3)]
    mask = np.array([[1, 1, 1, 1, 1], [1, 1, 0, 0, 0], [1, 0, 0, 0, 0]], np.int32)
    mix = ScalarMix(do_layer_norm=do_layer_norm)
    fresh = np.asarray(mix(layers, mask))  # W = 0, gamma = 1: the plain mean of the layers
    np.testing.assert_allclose(fresh, numpy_mix(layers, mask, np.zeros(3), 1.0, do_layer_norm),
                               rtol=1e-5, atol=1e-5)
    w, gamma = np.array([0.3, -1.2, 0.8], np.float32), 1.7
    mix.w.assign(w)
    mix.gamma.assign([gamma])
    # float32 against float64, values of order 10: 1e-5 relative is a few float32 ulps.
    np.testing.assert_allclose(np.asarray(mix(layers, mask)), numpy_mix(layers, mask, w, gamma, do_layer_norm),
                               rtol=1e-5, atol=1e-5)


def test_l2_on_w_only():
    mix = ScalarMix(l2_coef=0.1)
    layers = [np.ones((1, 2, 3), np.float32)] * 2
    mix(layers, np.ones((1, 2), np.int32))
    mix.w.assign([1.0, -2.0])
    assert float(keras.ops.sum(mix.losses)) == pytest.approx(0.1 * 5.0)
    assert {v.name for v in mix.trainable_weights} == {"ELMo_W", "ELMo_gamma"}


def test_rebuilds_from_config():
    mix = ScalarMix(do_layer_norm=True, l2_coef=0.01)
    again = ScalarMix.from_config(mix.get_config())
    assert (again.do_layer_norm, again.l2_coef) == (True, 0.01)
