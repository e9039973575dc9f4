"""The language-model loss of one sequence, as the original's fine-tuning
computes it: each real token after the first predicted from the state before it."""

from keras import ops


def next_token_targets(word_ids, input_mask):
    """(targets, weights) [batch, seq]: at position t the token t+1 and 1.0
    where it is real; the last position predicts nothing (target 0, weight 0).
    Aligned with the logits, which need no slicing then (a copy of the
    largest tensor of the step)."""
    zeros = ops.zeros_like(word_ids[:, :1])
    targets = ops.concatenate([ops.cast(word_ids[:, 1:], "int32"), ops.cast(zeros, "int32")], axis=1)
    weights = ops.concatenate([ops.cast(ops.greater(input_mask[:, 1:], 0), "float32"),
                               ops.cast(zeros, "float32")], axis=1)
    return targets, weights


def next_token_losses(logits, targets):
    """Float32 [batch, seq]: the cross-entropy of each target under its logits."""
    return ops.sparse_categorical_crossentropy(targets, ops.cast(logits, "float32"), from_logits=True)


def next_token_loss(logits, word_ids, input_mask):
    """Float32 [batch]: the cross-entropy of token t+1 under `logits[:, t]`,
    averaged over the real tokens predicted (`input_mask[:, 1:]`; a row with
    fewer than two real tokens gives 0).

    Example:
    >>> next_token_loss(encoder.lm_logits(outputs["sequence_output"]), ids, mask)
    """
    targets, weights = next_token_targets(word_ids, input_mask)
    losses = next_token_losses(logits, targets)
    return ops.sum(losses * weights, axis=1) / ops.maximum(ops.sum(weights, axis=1), 1.0)
