"""Self-attention with probability dropout as one Pallas kernel, for JAX on a GPU.

With dropout on, Keras's attention materialises the [batch, heads, q, k] scores and
probabilities in memory (einsum, softmax, dropout, einsum), and JAX's public fused
attention takes no dropout, so BERT's training step could not use a fused kernel.
This one keeps the paper's attention dropout and never writes the probabilities:
FlashAttention-2's online-softmax forward and recomputing backward, with a keep
mask that is a hash of (seed, batch, head, query, key). Forward and backward
recompute the same mask, so nothing of it is stored. On a machine without a GPU
the kernel runs in Pallas's interpreter (correct, slow: the tests' path). On a
GPU it is used only after `works_here` has compiled it there and found it to
agree with the unfused attention.

`keep_mask` is the same mask in plain JAX; `reference_attention` the same
arithmetic in plain JAX, for the tests and the self-check.
"""

import concurrent.futures
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from absl import logging
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plgpu

BLOCK = 32  # query and key rows per tile at the least; sequence lengths must be multiples of it
WIDE_BLOCK = 64  # rows per tile where they divide the sequence (see `tile_rows`)
HEAD_SIZES = (16, 32, 64, 128)  # Triton tiles need a power of two
_MASKED = -0.7 * float(np.finfo(np.float32).max)
_LOG2_E = math.log2(math.e)
_GOLDEN = 0x9E3779B9


def on_gpu():
    """Where the kernel is chosen: Triton compiles it for the GPU."""
    return jax.default_backend() == "gpu"


def _interpreted():
    """Off a GPU, Pallas's interpreter runs the kernel."""
    return jax.default_backend() != "gpu"


def supported(head_size, seq_len, block=BLOCK):
    """Whether the kernel takes these shapes (the caller falls back otherwise)."""
    return head_size in HEAD_SIZES and seq_len is not None and seq_len % block == 0


def tile_rows(seq_len):
    """Rows per tile: 64 where they divide the sequence, since fewer, larger tiles ran
    faster on an H200 (BERT-Base's attention at seq 128: 0.58 ms against 0.84 ms)."""
    return WIDE_BLOCK if seq_len % WIDE_BLOCK == 0 else BLOCK


def _mix(x):
    """A 32-bit integer hash with full avalanche (Wellons' lowbias32)."""
    x = x ^ (x >> 16)
    x = x * jnp.uint32(0x7FEB352D)
    x = x ^ (x >> 15)
    x = x * jnp.uint32(0x846CA68B)
    return x ^ (x >> 16)


def _threshold(rate):
    return jnp.uint32(min(int(round(rate * 2.0 ** 32)), 2 ** 32 - 1))


def _keep(head_seed, rows, cols, rate):
    """Keep mask [len(rows), len(cols)] of one head: one hash per element."""
    row_hash = _mix(head_seed + rows.astype(jnp.uint32))
    col_term = cols.astype(jnp.uint32) * jnp.uint32(_GOLDEN)
    return _mix(row_hash[:, None] ^ col_term[None, :]) >= _threshold(rate)


def head_seeds(seed, batch, heads):
    """[batch, heads] uint32 seeds, one per attention head, from one int seed."""
    index = jnp.arange(batch * heads, dtype=jnp.uint32).reshape(batch, heads)
    return _mix(_mix(index + jnp.uint32(_GOLDEN)) ^ jnp.asarray(seed).astype(jnp.uint32))


def keep_mask(seed, batch, heads, seq_len, rate):
    """The kernel's keep mask as a [batch, heads, q, k] boolean array."""
    positions = jnp.arange(seq_len)
    per_head = jax.vmap(jax.vmap(lambda s: _keep(s, positions, positions, rate)))
    return per_head(head_seeds(seed, batch, heads))


def reference_attention(query, key, value, attention_mask, seed, rate):
    """Softmax attention with the kernel's dropout mask, unfused, in plain JAX."""
    batch, seq_len, heads, head_size = query.shape
    scores = jnp.einsum("bqhd,bkhd->bhqk", query, key).astype(jnp.float32) / math.sqrt(head_size)
    probs = jax.nn.softmax(jnp.where(attention_mask[:, None], scores, _MASKED), axis=-1)
    if rate > 0:
        probs = jnp.where(keep_mask(seed, batch, heads, seq_len, rate), probs / (1 - rate), 0.0)
    return jnp.einsum("bhqk,bkhd->bqhd", probs.astype(value.dtype), value)


def _dot(a, b, trans_a=False, trans_b=False):
    """A tile product accumulated in float32 (Pallas's own `pl.dot` is gone from JAX 0.12)."""
    dims = (((0 if trans_a else 1,), (1 if trans_b else 0,)), ((), ()))
    return jax.lax.dot_general(a, b, dims, preferred_element_type=jnp.float32)


def _scores(q, k, mask, scale):
    """Base-2 logits of a [rows, cols] tile, masked."""
    s = _dot(q, k, trans_b=True) * (scale * _LOG2_E)
    return jnp.where(mask != 0, s, _MASKED)


def _forward_kernel(q_ref, k_ref, v_ref, mask_ref, seed_ref, o_ref, max_ref, inverse_sum_ref, *,
                    scale, rate, block):
    """Output rows of query block `i`, and the softmax's row maximum (base 2) and
    inverse row sum for the backward pass."""
    head_size = q_ref.shape[1]
    seq_len = k_ref.shape[0]
    rows = pl.program_id(0) * block + jnp.arange(block)
    q = q_ref[...]
    seed = seed_ref[()]

    def step(j, carry):
        acc, row_max, row_sum = carry
        cols = pl.ds(j * block, block)
        s = _scores(q, k_ref[cols, :], mask_ref[:, cols], scale)
        new_max = jnp.maximum(row_max, jnp.max(s, axis=1))
        p = jnp.exp2(s - new_max[:, None])
        correction = jnp.exp2(row_max - new_max)
        row_sum = row_sum * correction + jnp.sum(p, axis=1)
        if rate > 0:
            p = jnp.where(_keep(seed, rows, j * block + jnp.arange(block), rate), p, 0.0)
        v = v_ref[cols, :]
        acc = acc * correction[:, None] + _dot(p.astype(v.dtype), v)
        return acc, new_max, row_sum

    init = (jnp.zeros((block, head_size), jnp.float32),
            jnp.full((block,), -jnp.inf, jnp.float32), jnp.zeros((block,), jnp.float32))
    acc, row_max, row_sum = jax.lax.fori_loop(0, seq_len // block, step, init)
    o_ref[...] = (acc / (row_sum[:, None] * (1 - rate))).astype(o_ref.dtype)
    # Kept apart, not as one log-sum-exp: a query row with no key to attend to has the
    # maximum of the masking constant, which would swallow log2(row_sum) in float32.
    # The inverse, so that the backward multiplies each probability instead of dividing.
    max_ref[...] = row_max
    inverse_sum_ref[...] = 1.0 / row_sum


def _backward_kernel(q_ref, k_ref, v_ref, mask_ref, seed_ref, do_ref, max_ref, inverse_sum_ref,
                     delta_ref, dq_ref, dk_ref, dv_ref, *, scale, rate, block):
    """dK, dV of key block `j` (a loop over query blocks), then dQ of query block `j`."""
    seq_len, head_size = q_ref.shape
    j = pl.program_id(2)
    seed = seed_ref[()]
    inverse_keep = 1.0 / (1 - rate)

    def grad_scores(q, k, v, do, row_max, inverse_sum, delta, rows, cols, mask):
        """Probabilities after dropout, and the gradient of the scores, of one tile."""
        p = jnp.exp2(_scores(q, k, mask, scale) - row_max[:, None]) * inverse_sum[:, None]
        dp = _dot(do, v, trans_b=True)
        if rate > 0:
            keep = _keep(seed, rows, cols, rate)
            dropped = jnp.where(keep, p * inverse_keep, 0.0)
            dp = jnp.where(keep, dp * inverse_keep, 0.0)
        else:
            dropped = p
        # Masked scores are constants: no gradient, also in a row with no key to attend to.
        return dropped, jnp.where(mask != 0, p * (dp - delta[:, None]) * scale, 0.0)

    key_slice = pl.ds(j * block, block)
    block_rows = j * block + jnp.arange(block)
    k, v = k_ref[key_slice, :], v_ref[key_slice, :]

    def key_step(i, carry):
        dk, dv = carry
        query_slice = pl.ds(i * block, block)
        do = do_ref[query_slice, :]
        q = q_ref[query_slice, :]
        dropped, ds = grad_scores(
            q, k, v, do, max_ref[query_slice], inverse_sum_ref[query_slice],
            delta_ref[query_slice], i * block + jnp.arange(block), block_rows,
            mask_ref[query_slice, key_slice])
        dv = dv + _dot(dropped.astype(do.dtype), do, trans_a=True)
        dk = dk + _dot(ds.astype(q.dtype), q, trans_a=True)
        return dk, dv

    zeros = jnp.zeros((block, head_size), jnp.float32)
    dk, dv = jax.lax.fori_loop(0, seq_len // block, key_step, (zeros, zeros))
    dk_ref[...] = dk.astype(dk_ref.dtype)
    dv_ref[...] = dv.astype(dv_ref.dtype)

    query_slice = key_slice
    q, do = q_ref[query_slice, :], do_ref[query_slice, :]
    row_max, inverse_sum = max_ref[query_slice], inverse_sum_ref[query_slice]
    delta = delta_ref[query_slice]

    def query_step(i, dq):
        cols = pl.ds(i * block, block)
        k = k_ref[cols, :]
        _, ds = grad_scores(q, k, v_ref[cols, :], do, row_max, inverse_sum, delta, block_rows,
                            i * block + jnp.arange(block), mask_ref[query_slice, cols])
        return dq + _dot(ds.astype(k.dtype), k)

    dq = jax.lax.fori_loop(0, seq_len // block, query_step, zeros)
    dq_ref[...] = dq.astype(dq_ref.dtype)


def _params():
    return plgpu.CompilerParams(num_warps=4, num_stages=2)


def _forward(query, key, value, mask, seeds, rate, block):
    batch, seq_len, heads, head_size = query.shape
    scale = 1 / math.sqrt(head_size)
    tile = (None, block, None, head_size)
    whole = (None, seq_len, None, head_size)
    return pl.pallas_call(
        functools.partial(_forward_kernel, scale=scale, rate=rate, block=block),
        grid=(seq_len // block, batch, heads),
        in_specs=[
            pl.BlockSpec(tile, lambda i, b, h: (b, i, h, 0)),
            pl.BlockSpec(whole, lambda i, b, h: (b, 0, h, 0)),
            pl.BlockSpec(whole, lambda i, b, h: (b, 0, h, 0)),
            pl.BlockSpec((None, block, seq_len), lambda i, b, h: (b, i, 0)),
            pl.BlockSpec((None, None), lambda i, b, h: (b, h)),
        ],
        out_specs=[pl.BlockSpec(tile, lambda i, b, h: (b, i, h, 0))]
        + [pl.BlockSpec((None, None, block), lambda i, b, h: (b, h, i))] * 2,
        out_shape=[jax.ShapeDtypeStruct(query.shape, query.dtype)]
        + [jax.ShapeDtypeStruct((batch, heads, seq_len), jnp.float32)] * 2,
        compiler_params=_params(),
        interpret=_interpreted(),
        name="attention_dropout_forward",
    )(query, key, value, mask, seeds)


def _backward(query, key, value, mask, seeds, out, row_max, inverse_sum, d_out, rate, block):
    batch, seq_len, heads, head_size = query.shape
    delta = jnp.einsum("bqhd,bqhd->bhq", out.astype(jnp.float32), d_out.astype(jnp.float32))
    whole = pl.BlockSpec((None, seq_len, None, head_size), lambda b, h, j: (b, 0, h, 0))
    per_row = pl.BlockSpec((None, None, seq_len), lambda b, h, j: (b, h, 0))
    tile = pl.BlockSpec((None, block, None, head_size), lambda b, h, j: (b, j, h, 0))
    return pl.pallas_call(
        functools.partial(_backward_kernel, scale=1 / math.sqrt(head_size), rate=rate,
                          block=block),
        grid=(batch, heads, seq_len // block),
        in_specs=[whole, whole, whole,
                  pl.BlockSpec((None, seq_len, seq_len), lambda b, h, j: (b, 0, 0)),
                  pl.BlockSpec((None, None), lambda b, h, j: (b, h)),
                  whole, per_row, per_row, per_row],
        out_specs=[tile, tile, tile],
        out_shape=[jax.ShapeDtypeStruct(x.shape, x.dtype) for x in (query, key, value)],
        compiler_params=_params(),
        interpret=_interpreted(),
        name="attention_dropout_backward",
    )(query, key, value, mask, seeds, d_out, row_max, inverse_sum, delta)


@functools.partial(jax.custom_vjp, nondiff_argnums=(5, 6))
def _attention(query, key, value, mask, seeds, rate, block):
    return _forward(query, key, value, mask, seeds, rate, block)[0]


def _attention_forward(query, key, value, mask, seeds, rate, block):
    out, row_max, inverse_sum = _forward(query, key, value, mask, seeds, rate, block)
    return out, (query, key, value, mask, seeds, out, row_max, inverse_sum)


def _attention_backward(rate, block, residuals, d_out):
    dq, dk, dv = _backward(*residuals, d_out, rate, block)
    return dq, dk, dv, None, None


_attention.defvjp(_attention_forward, _attention_backward)


def attention(query, key, value, attention_mask, seed, rate, block=None):
    """Dropout attention of [batch, seq, heads, head_size] inputs, fused.

    `attention_mask` is boolean [batch, q or 1, k] (True: may attend); `seed` an int
    scalar, a fresh one per step; `rate` the probability of dropping a weight;
    `block` the rows of a tile, a power of two (a tuning knob for the GPU; by default
    `tile_rows`).
    """
    batch, seq_len, heads, head_size = query.shape
    block = block or tile_rows(seq_len)
    if not supported(head_size, seq_len, block):
        raise ValueError(f"fused attention needs a head size in {HEAD_SIZES} and a sequence "
                         f"length divisible by {block}; got {head_size} and {seq_len}")
    mask = jnp.broadcast_to(attention_mask, (batch, seq_len, seq_len)).astype(jnp.int8)
    return _attention(query, key, value, mask, head_seeds(seed, batch, heads), float(rate), block)


@functools.cache
def works_here():
    """Whether the kernel compiles on this device and agrees with `reference_attention`,
    forward and backward, on a small bfloat16 case; checked once per process, so a
    device or Triton version it fails on falls back to the explicit softmax.

    The layer asks while a training step is being traced; the check runs on a thread
    of its own, where JAX computes eagerly (tracing state is per thread)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        error = pool.submit(_self_check_outcome).result()
    if error:
        logging.warning("Attention dropout runs unfused: the fused kernel %s", error)
    return error is None


def _self_check_outcome():
    try:
        return _self_check_error()
    except Exception as failure:  # Triton lowering and compilation raise many types
        return f"{type(failure).__name__}: {failure}"


def _self_check_error():
    """The first disagreement found, for each tile size `tile_rows` can choose."""
    for block in (BLOCK, WIDE_BLOCK):
        error = _tile_check_error(block)
        if error:
            return f"with {block}-row tiles {error}"
    return None


def _tile_check_error(block):
    shape = (2, 2 * block, 2, 64)
    query, key, value, weights = (jax.random.normal(jax.random.PRNGKey(i), shape, jnp.bfloat16)
                                  for i in range(4))
    lengths = jnp.array([2 * block, block + 3])
    valid = jnp.arange(shape[1])[None, :] < lengths[:, None]
    mask = jnp.broadcast_to(valid[:, None, :], (2, shape[1], shape[1]))

    def outputs_and_grads(fn, *inputs, **tiles):
        def loss(*x):
            return jnp.sum(fn(*x, mask, 5, 0.1, **tiles).astype(jnp.float32) * weights)
        return fn(*inputs, mask, 5, 0.1, **tiles), jax.grad(loss, (0, 1, 2))(*inputs)

    got = jax.jit(lambda *x: outputs_and_grads(attention, *x, block=block))(query, key, value)
    exact = [x.astype(jnp.float32) for x in (query, key, value)]
    expected = outputs_and_grads(reference_attention, *exact)
    # Loose enough for bfloat16 and TF32 products, far below what a wrong mask moves.
    for name, g, e in zip(("output", "dq", "dk", "dv"), jax.tree.leaves(got),
                          jax.tree.leaves(expected)):
        error = float(jnp.max(jnp.abs(g.astype(jnp.float32) - e)) / jnp.max(jnp.abs(e)))
        if not error < 2 ** -5:
            return f"differs from the unfused attention in {name} by {error:.3g} of its largest value"
    return None
