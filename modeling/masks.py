"""Attention masks: padding, and causality for the left-to-right ablation."""

from keras import ops


def attention_mask_from_input_mask(input_mask, causal=False):
    """[batch, seq] 0/1 padding mask -> boolean [batch, 1 or seq, seq] (query x key)."""
    key_mask = ops.expand_dims(ops.cast(input_mask, "bool"), 1)  # [batch, 1, key]
    if not causal:
        return key_mask
    # Positions counted from the mask itself rather than `ops.arange(seq)`, whose
    # length is unknown while a functional model is built on symbolic inputs.
    positions = ops.cumsum(ops.ones_like(input_mask, dtype="int32"), axis=1)  # [batch, seq]
    causal_mask = ops.expand_dims(positions, 2) >= ops.expand_dims(positions, 1)  # [batch, q, k]
    return ops.logical_and(key_mask, causal_mask)
