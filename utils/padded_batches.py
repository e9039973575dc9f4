"""Evaluation batches of one shape that still count every example exactly once.

Dropping the last partial batch loses examples (fewer examples than the batch
size evaluates nothing at all); keeping it changes the batch shape, which TPUs
and XLA recompile for and which leaves replicas empty. So the last batch is
padded with zero rows to the full size and carries a mask of its real rows;
the inference step runs the model on the whole batch and keeps only the real
rows for the loss, the metrics and the gathered predictions.
"""

import tensorflow as tf


def pad_batch(features, labels, batch_size):
    """`(features, labels, valid)`: every tensor padded with zero rows to
    `batch_size`; `valid[i]` is True for the batch's real rows."""
    rows = tf.shape(tf.nest.flatten(features)[0])[0]

    def pad(tensor):
        paddings = [[0, batch_size - rows]] + [[0, 0]] * (tensor.shape.rank - 1)
        padded = tf.pad(tensor, paddings)
        padded.set_shape([batch_size] + tensor.shape[1:].as_list())
        return padded

    valid = tf.range(batch_size) < rows
    return tf.nest.map_structure(pad, features), tf.nest.map_structure(pad, labels), valid


def real_rows(structure, valid):
    """Only the rows of each (batch-major) tensor in `structure` where `valid` is True."""
    return tf.nest.map_structure(lambda t: tf.boolean_mask(t, valid), structure)
