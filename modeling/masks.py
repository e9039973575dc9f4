"""Attention masks: padding, and causality for the left-to-right ablation."""

from keras import ops


def attention_mask_from_input_mask(input_mask, causal=False):
    """[batch, seq] 0/1 padding mask -> boolean [batch, 1 or seq, seq] (query x key)."""
    key_mask = ops.expand_dims(ops.cast(input_mask, "bool"), 1)  # [batch, 1, key]
    if not causal:
        return key_mask
    seq = ops.shape(input_mask)[1]
    positions = ops.arange(seq)
    causal_mask = ops.expand_dims(positions, 1) >= ops.expand_dims(positions, 0)  # [q, k]
    return ops.logical_and(key_mask, ops.expand_dims(causal_mask, 0))
