"""Pretraining losses in `keras.ops` only, shared by the TensorFlow task and
the backend-neutral benchmark.

Each example's masked-LM loss is the mean over its own masked positions, so
an example's loss does not depend on which other examples share its batch,
replica or micro-batch; the trainer then averages over examples. (The
original averages over all masked tokens of a batch, which weights long
sequences slightly more and changes with the batch split.)
"""

from keras import ops


def masked_lm_losses(mlm_logits, label_ids):
    """Per-position cross-entropy [batch, predictions] (float32)."""
    log_probs = ops.log_softmax(ops.cast(mlm_logits, "float32"), axis=-1)
    picked = ops.take_along_axis(
        log_probs, ops.expand_dims(ops.cast(label_ids, "int32"), -1), axis=-1)
    return -ops.squeeze(picked, -1)


def next_sentence_losses(nsp_logits, labels):
    """Per-example NSP cross-entropy [batch]; labels [batch] or [batch, 1]."""
    labels = ops.reshape(ops.cast(labels, "int32"), (-1, 1))
    log_probs = ops.log_softmax(ops.cast(nsp_logits, "float32"), axis=-1)
    return -ops.squeeze(ops.take_along_axis(log_probs, labels, axis=-1), -1)


def pretraining_loss(outputs, labels):
    """Per-example loss [batch]: masked-LM mean over positions (+ NSP when present)."""
    weights = ops.cast(labels["masked_lm_weights"], "float32")
    per_position = masked_lm_losses(outputs["mlm_logits"], labels["masked_lm_ids"])
    loss = ops.sum(per_position * weights, axis=-1) / ops.maximum(ops.sum(weights, axis=-1), 1e-5)
    if "nsp_logits" in outputs:
        loss = loss + next_sentence_losses(outputs["nsp_logits"], labels["next_sentence_labels"])
    return loss
