"""The tf.data pipeline of a split held in memory as arrays (question answering,
tagging, multiple choice), as the trainer wants it."""

import numpy as np
import tensorflow as tf


def array_dataset(inputs, labels, batch_size, training, seed, input_context=None, lengths=None):
    """Batches of `(inputs, labels)`, dicts of arrays with one row per example.

    Training: shuffled over every row with `seed`, repeated, full batches.
    Otherwise one pass, the last batch partial: in order, or from the shortest
    row to the longest when `lengths` (one per row) are given, so that batches
    cut to their longest row carry little padding. With an `input_context`
    each input pipeline reads its shard at the per-replica size.
    """
    if lengths is not None and not training:
        order = np.argsort(lengths, kind="stable")
        inputs, labels = ({k: v[order] for k, v in part.items()} for part in (inputs, labels))
    dataset = tf.data.Dataset.from_tensor_slices((inputs, labels))
    if input_context is not None:
        dataset = dataset.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
        batch_size = input_context.get_per_replica_batch_size(batch_size)
    if training:
        rows = len(next(iter(labels.values())))
        dataset = dataset.shuffle(max(rows, 1), seed=seed).repeat()
    return dataset.batch(batch_size, drop_remainder=training)
