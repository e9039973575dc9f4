"""The language-model loss of one sequence, as the original's fine-tuning
computes it: each real token after the first predicted from the state before it."""

from keras import ops


def next_token_loss(logits, word_ids, input_mask):
    """Float32 [batch]: the cross-entropy of token t+1 under `logits[:, t]`,
    averaged over the real tokens predicted (`input_mask[:, 1:]`; a row with
    fewer than two real tokens gives 0).

    Example:
    >>> next_token_loss(encoder.lm_logits(outputs["sequence_output"]), ids, mask)
    """
    targets = ops.cast(word_ids[:, 1:], "int32")
    weights = ops.cast(ops.greater(input_mask[:, 1:], 0), "float32")
    losses = ops.sparse_categorical_crossentropy(targets, ops.cast(logits[:, :-1], "float32"),
                                                 from_logits=True)
    return ops.sum(losses * weights, axis=1) / ops.maximum(ops.sum(weights, axis=1), 1.0)
