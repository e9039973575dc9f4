"""Transformer-XL's relative sinusoid positional encoding, as XLNet computes it."""

from keras import ops


def relative_positional_encoding(qlen, klen, d_model, attn_type="bi", bi_data=False,
                                 clamp_len=-1, batch_size=None, dtype="float32"):
    """Sinusoids of the relative distances `klen, klen-1, ..., -qlen+1` (bi) or
    `klen, ..., 0` (uni), clamped to `[-clamp_len, clamp_len]` when `clamp_len > 0`.

    Returns [R, d_model], or with `bi_data` [batch_size, R, d_model]: the first
    half of the batch reads forward (distances as above), the second half backward
    (distances negated), as the original's bidirectional data pipeline expects.
    The first R-1 rows are what `relative_attention.rel_shift` aligns to keys.
    """
    end = -qlen if attn_type == "bi" else -1
    forward = ops.arange(klen, end, -1, dtype="float32")
    inv_freq = 1.0 / ops.power(10000.0, ops.arange(0, d_model, 2, dtype="float32") / d_model)
    forward_emb = ops.cast(_sinusoid(_clamp(forward, clamp_len), inv_freq), dtype)
    if not bi_data:
        return forward_emb
    if isinstance(batch_size, int) and batch_size % 2:
        raise ValueError(f"bi_data needs an even batch size (forward and backward halves), got {batch_size}")
    backward_emb = ops.cast(_sinusoid(_clamp(-forward, clamp_len), inv_freq), dtype)
    half = (batch_size // 2, ops.shape(forward_emb)[0], d_model)
    return ops.concatenate([ops.broadcast_to(forward_emb[None], half),
                            ops.broadcast_to(backward_emb[None], half)], axis=0)


def _clamp(positions, clamp_len):
    return ops.clip(positions, -clamp_len, clamp_len) if clamp_len > 0 else positions


def _sinusoid(positions, inv_freq):
    angles = positions[:, None] * inv_freq[None, :]
    return ops.concatenate([ops.sin(angles), ops.cos(angles)], axis=-1)
