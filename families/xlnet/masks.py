"""XLNet's attention masks, in the original's convention: 1.0 = may NOT attend.

The content stream sees what the query stream sees plus its own position; memory
is always visible (only the causal mask of `attn_type="uni"` limits it). A query
row that sees nothing (a first target with no unmasked context) gets uniform
attention over every key, as in the original, which subtracts 1e30 from the scores.
"""

from keras import ops


def attention_masks(qlen, mlen, input_mask=None, perm_mask=None, attn_type="bi",
                    same_length=False):
    """Returns (content_mask, query_mask), float32 [batch or 1, qlen, mlen + qlen].

    `input_mask` [batch, qlen]: 1 for padding. `perm_mask` [batch, qlen, qlen]:
    `perm_mask[b, i, j] = 1` means i may not attend to j (the original's and
    Hugging Face's convention; the Model Garden's `permutation_mask` is its inverse).
    """
    klen = mlen + qlen
    rows = ops.arange(qlen, dtype="int32")[:, None]
    cols = ops.arange(klen, dtype="int32")[None, :]
    mask = ops.zeros((1, qlen, klen), "float32")
    if attn_type == "uni":
        causal = cols > rows + mlen
        if same_length:
            causal = ops.logical_or(causal, ops.logical_and(cols < qlen, cols < rows))
        mask = mask + ops.cast(causal, "float32")[None]
    data = ops.zeros((1, qlen, qlen), "float32")
    if input_mask is not None:
        data = data + ops.cast(input_mask, "float32")[:, None, :]
    if perm_mask is not None:
        data = data + ops.cast(perm_mask, "float32")
    if input_mask is not None or perm_mask is not None:
        data = ops.pad(data, ((0, 0), (0, 0), (mlen, 0)))
        mask = mask + data
    query_mask = ops.cast(mask > 0, "float32")
    own_position = ops.cast(ops.equal(cols, rows + mlen), "float32")[None]
    content_mask = ops.cast(query_mask - own_position > 0, "float32")
    return content_mask, query_mask
