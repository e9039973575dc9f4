"""Attention masks and positions from `input_mask`: padding, packed sequences,
and causality for the left-to-right ablation.

`input_mask` is 1 for real tokens and 0 for padding, or, for a row that packs
several sequences (`families.bert.pretraining.sequence_packing`), 1, 2, 3, ... numbering each
token's sequence. A token then attends only within its own sequence and its
positions restart at 0 with every sequence, so each packed sequence is
encoded exactly as it would be alone. For 0/1 masks both rules reduce to the
usual padding mask and positions 0..seq-1.
"""

from keras import ops


def attention_mask_from_input_mask(input_mask, causal=False):
    """[batch, seq] mask -> boolean [batch, seq, seq] (query x key).

    A padding query attends to every real key, as in the original BERT."""
    mask = ops.cast(input_mask, "int32")
    query, key = ops.expand_dims(mask, 2), ops.expand_dims(mask, 1)
    allowed = ops.logical_and(key > 0, ops.logical_or(ops.equal(query, key), ops.equal(query, 0)))
    if not causal:
        return allowed
    positions = _token_indices(mask)
    causal_mask = ops.expand_dims(positions, 2) >= ops.expand_dims(positions, 1)
    return ops.logical_and(allowed, causal_mask)


def position_ids_from_input_mask(input_mask):
    """[batch, seq] position ids: 0.. per packed sequence, 0..seq-1 for a 0/1 mask."""
    mask = ops.cast(input_mask, "int32")
    indices = _token_indices(mask)
    # Tokens earlier in the row that belong to the same sequence.
    earlier = ops.expand_dims(indices, 2) > ops.expand_dims(indices, 1)  # [batch, q, k]
    same = ops.equal(ops.expand_dims(mask, 2), ops.expand_dims(mask, 1))
    within = ops.sum(ops.cast(ops.logical_and(earlier, same), "int32"), axis=2)
    packed = ops.max(mask, axis=1, keepdims=True) > 1
    return ops.where(packed, within, indices)


def last_token_of_first_sequence(input_mask):
    """[batch, 1] position of the last token numbered 1 in `input_mask`: the last real
    token of a 0/1 row, the end of the first sequence of a packed one (0 for
    a row of padding). Under a causal mask it is the only token that has seen
    that whole sequence."""
    mask = ops.cast(input_mask, "int32")
    return ops.max(ops.where(ops.equal(mask, 1), _token_indices(mask), 0), axis=1, keepdims=True)


def _token_indices(mask):
    # Counted from the mask itself rather than `ops.arange(seq)`, whose length is
    # unknown while a functional model is built on symbolic inputs.
    return ops.cumsum(ops.ones_like(mask, dtype="int32"), axis=1) - 1
