"""The fused dropout-attention kernel against float64 numpy attention with the
same keep mask, its gradients against JAX's autodiff of the unfused attention,
and the keep mask's statistics. Off a GPU the kernel runs in Pallas's
interpreter, the same kernel code that Triton compiles on one."""

import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from modeling import flash_attention
from modeling.masks import attention_mask_from_input_mask
from tests.conftest import JAX_CPU, ROOT

BATCH, SEQ, HEADS, HEAD_SIZE = 2, 2 * flash_attention.BLOCK, 2, 16
SEED = 1234
EPS32 = float(np.finfo(np.float32).eps)


def _input_mask(kind):
    """[batch, seq] input_mask: padding, a row of padding only, two packed sequences,
    or full rows."""
    mask = np.ones((BATCH, SEQ), np.int32)
    if kind == "padding":
        mask[1, 40:] = 0
    elif kind == "empty":
        mask[0, 50:], mask[1] = 0, 0
    elif kind == "packed":
        mask[0, 20:50], mask[0, 50:] = 2, 0
        mask[1, 33:] = 2
    return mask


def _attention_mask(kind):
    causal = kind == "causal"
    return np.asarray(attention_mask_from_input_mask(_input_mask(kind), causal=causal))


def _qkv(dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((BATCH, SEQ, HEADS, HEAD_SIZE)).astype(dtype) for _ in range(3)]


def _numpy_attention(q, k, v, mask, keep, rate):
    """float64 softmax attention with dropout, written out. A query row with no key to
    attend to averages all values, as BERT's additive mask makes it do."""
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    scores = np.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(HEAD_SIZE)
    masked = np.where(mask[:, None], scores, -1e30)
    probs = np.exp(masked - masked.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    if rate > 0:
        probs = np.where(keep, probs / (1 - rate), 0.0)
    return np.einsum("bhqk,bkhd->bqhd", probs, v), np.abs(scores).max()


def _fp32_bound(max_score, scale, rate):
    """Worst-case float32 error: a sum of SEQ positive weights, and scores that are
    sums of HEAD_SIZE products whose error is amplified by exp's slope."""
    return (SEQ + HEAD_SIZE * max_score) * EPS32 * scale / (1 - rate)


@pytest.mark.parametrize("kind,block", [("full", flash_attention.BLOCK), ("padding", 16),
                                        ("packed", flash_attention.BLOCK), ("causal", 64),
                                        ("empty", flash_attention.BLOCK)])
@pytest.mark.parametrize("rate", [0.0, 0.1])
def test_forward_matches_float64_attention_with_the_same_keep_mask(kind, block, rate):
    q, k, v = _qkv()
    mask = _attention_mask(kind)
    keep = np.asarray(flash_attention.keep_mask(SEED, BATCH, HEADS, SEQ, rate))
    expected, max_score = _numpy_attention(q, k, v, mask, keep, rate)
    got = np.asarray(flash_attention.attention(q, k, v, mask, SEED, rate, block=block))
    np.testing.assert_allclose(got, expected, rtol=0,
                               atol=_fp32_bound(max_score, np.abs(v).max(), rate))


@pytest.mark.parametrize("kind,block", [("padding", flash_attention.BLOCK), ("packed", 16),
                                        ("empty", flash_attention.BLOCK)])
@pytest.mark.parametrize("rate", [0.0, 0.1])
def test_gradients_match_autodiff_of_the_unfused_attention(kind, block, rate):
    q, k, v = _qkv()
    mask = _attention_mask(kind)
    weights = jnp.asarray(np.random.default_rng(1).standard_normal((BATCH, SEQ, HEADS, HEAD_SIZE)),
                          jnp.float32)

    def loss(fn, **block):
        return lambda q, k, v: jnp.sum(fn(q, k, v, mask, SEED, rate, **block) * weights)

    got = jax.grad(loss(flash_attention.attention, block=block), (0, 1, 2))(q, k, v)
    expected = jax.grad(loss(flash_attention.reference_attention), (0, 1, 2))(q, k, v)
    max_score = _numpy_attention(q, k, v, mask, True, 0.0)[1]
    for name, g, e in zip("qkv", got, expected):
        e = np.asarray(e)
        # Both sides round in float32, each within the bound of the forward pass.
        bound = 2 * _fp32_bound(max_score, np.abs(e).max(), rate)
        np.testing.assert_allclose(np.asarray(g), e, rtol=0, atol=bound, err_msg=f"d{name}")


def test_bfloat16_inputs_give_bfloat16_outputs_within_its_rounding():
    q, k, v = _qkv()
    q16, k16, v16 = (jnp.asarray(x, jnp.bfloat16) for x in (q, k, v))
    mask = _attention_mask("padding")
    rate = 0.1
    keep = np.asarray(flash_attention.keep_mask(SEED, BATCH, HEADS, SEQ, rate))
    rounded = [np.asarray(x.astype(jnp.float32)) for x in (q16, k16, v16)]
    expected, max_score = _numpy_attention(*rounded, mask, keep, rate)
    got = flash_attention.attention(q16, k16, v16, mask, SEED, rate)
    assert got.dtype == jnp.bfloat16
    # Probabilities enter the value product in bfloat16 and the output is rounded to
    # it: two relative roundings of at most 2^-9 each of a weighted mean of v.
    scale = np.abs(rounded[2]).max()
    bound = 2 ** -8 * scale / (1 - rate) + _fp32_bound(max_score, scale, rate)
    np.testing.assert_allclose(np.asarray(got.astype(jnp.float32)), expected, rtol=0, atol=bound)


def _binomial_slack(p, n):
    return 6 * np.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("rate", [0.1, 0.5])
def test_keep_mask_keeps_one_minus_rate_independently_per_seed_head_and_position(rate):
    batch, heads, seq = 4, 12, 128
    keep = np.asarray(flash_attention.keep_mask(7, batch, heads, seq, rate))
    n = keep.size
    assert abs(keep.mean() - (1 - rate)) < _binomial_slack(1 - rate, n)
    agree = (1 - rate) ** 2 + rate ** 2  # two independent masks agree this often
    other_seed = np.asarray(flash_attention.keep_mask(8, batch, heads, seq, rate))
    pairs = {
        "seed": (keep, other_seed),
        "head": (keep[:, 1:], keep[:, :-1]),
        "batch row": (keep[1:], keep[:-1]),
        "query": (keep[..., 1:, :], keep[..., :-1, :]),
        "key": (keep[..., 1:], keep[..., :-1]),
    }
    for name, (a, b) in pairs.items():
        assert abs((a == b).mean() - agree) < _binomial_slack(agree, a.size), name


@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float32])
def test_forward_and_backward_lower_to_triton_for_a_gpu(monkeypatch, dtype):
    """Pallas's Triton lowering runs without a GPU: a primitive or block shape
    Triton cannot take fails here, not first on the GPU machine."""
    from jax import export
    monkeypatch.setattr(flash_attention, "_interpreted", lambda: False)
    shape = jax.ShapeDtypeStruct((2, 128, 12, 64), dtype)
    mask = jax.ShapeDtypeStruct((2, 128, 128), jnp.bool_)

    def grads(q, k, v, mask):
        def loss(*x):
            return jnp.sum(flash_attention.attention(*x, mask, 3, 0.1).astype(jnp.float32))
        return jax.grad(loss, (0, 1, 2))(q, k, v)

    triton = "__gpu$xla.gpu.triton"
    lowered = export.export(jax.jit(grads), platforms=["cuda"],
                            disabled_checks=[export.DisabledSafetyCheck.custom_call(triton)])
    module = lowered(shape, shape, shape, mask).mlir_module()
    for kernel in ("attention_dropout_forward", "attention_dropout_backward"):
        assert f'name = "{kernel}"' in module, kernel


def test_unsupported_shapes_are_refused_by_name():
    q = np.zeros((1, flash_attention.BLOCK + 1, 1, 16), np.float32)
    with pytest.raises(ValueError, match="divisible by"):
        flash_attention.attention(q, q, q, np.ones((1, 1, q.shape[1]), bool), 0, 0.1)
    assert not flash_attention.supported(24, 128)
    assert flash_attention.supported(64, 128)
    # 64-row tiles where they divide the sequence, 32 where only those do.
    assert [flash_attention.tile_rows(n) for n in (128, 512, 96)] == [64, 64, 32]


def test_the_self_check_passes_here_and_turns_the_kernel_off_where_it_fails(monkeypatch, caplog):
    flash_attention.works_here.cache_clear()
    # Asked first while a step is traced, as the layer does.
    assert int(jax.jit(lambda x: x + flash_attention.works_here())(0)) == 1

    def fails(*args):
        raise RuntimeError("no Triton here")

    flash_attention.works_here.cache_clear()
    monkeypatch.setattr(flash_attention, "_forward", fails)
    assert not flash_attention.works_here()
    assert "runs unfused: the fused kernel RuntimeError: no Triton here" in caplog.text
    flash_attention.works_here.cache_clear()


def test_the_self_check_covers_each_tile_size_the_kernel_chooses(monkeypatch, caplog):
    """A kernel wrong only with 32-row tiles (the fallback where 64 rows do not
    divide the sequence) is turned off too, though its 64-row tiles agree."""
    forward = flash_attention._forward

    def wrong_when_narrow(*args):
        out, row_max, inverse_sum = forward(*args)
        return (out * 1.1 if args[-1] == flash_attention.BLOCK else out), row_max, inverse_sum

    flash_attention.works_here.cache_clear()
    monkeypatch.setattr(flash_attention, "_forward", wrong_when_narrow)
    assert not flash_attention.works_here()
    assert "with 32-row tiles differs from the unfused attention in output" in caplog.text
    flash_attention.works_here.cache_clear()


def test_the_attention_layer_runs_the_kernel_in_training_under_jax():
    script = os.path.join(ROOT, "tests", "modeling", "fused_dropout_layer.py")
    done = subprocess.run([sys.executable, script], capture_output=True, text=True,
                          env={**os.environ, **JAX_CPU})
    assert done.returncode == 0, done.stdout + done.stderr
