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
    """NSP cross-entropy: [batch] from logits [batch, 2] and labels [batch] or
    [batch, 1]; [batch, sequences] from packed rows' [batch, sequences, 2]."""
    labels = ops.cast(labels, "int32")
    labels = ops.expand_dims(labels if len(nsp_logits.shape) == 3 else ops.reshape(labels, (-1,)), -1)
    log_probs = ops.log_softmax(ops.cast(nsp_logits, "float32"), axis=-1)
    return -ops.squeeze(ops.take_along_axis(log_probs, labels, axis=-1), -1)


def _weighted_mean(values, weights):
    weights = ops.cast(weights, "float32")
    return ops.sum(values * weights, axis=-1) / ops.maximum(ops.sum(weights, axis=-1), 1e-5)


def pretraining_loss(outputs, labels):
    """Per-example loss [batch]: masked-LM mean over positions (+ NSP when present).

    A packed row (`families.bert.pretraining.sequence_packing`) is one example: its masked-LM weights
    are 1 / (its sequence's masked count) and `next_sentence_weights` mark its
    sequences, so its loss is the mean over its sequences of theirs. Rows weigh
    the same, so a sequence sharing its row with k-1 others weighs 1/k: short
    sequences, packed together more, count less than in unpacked training."""
    per_position = masked_lm_losses(outputs["mlm_logits"], labels["masked_lm_ids"])
    loss = _weighted_mean(per_position, labels["masked_lm_weights"])
    if "nsp_logits" in outputs:
        nsp = next_sentence_losses(outputs["nsp_logits"], labels["next_sentence_labels"])
        if len(nsp.shape) == 2:
            if "next_sentence_weights" not in labels:
                raise ValueError("packed NSP logits [batch, sequences, 2] need next_sentence_weights")
            nsp = _weighted_mean(nsp, labels["next_sentence_weights"])
        loss = loss + nsp
    return loss
