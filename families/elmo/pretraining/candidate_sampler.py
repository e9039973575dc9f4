"""The sampled softmax's negative ids, drawn in the training step: TensorFlow's
log-uniform sampler without repeats (`tf.random.log_uniform_candidate_sampler`,
`unique=True`, what the original's `tf.nn.sampled_softmax_loss` uses), but
from a stateless seed, so that a resumed run draws what it would have drawn.

A draw is `floor(exp(u * log(range_max + 1))) - 1` for u uniform in [0, 1), in
float64, modulo `range_max`, as TensorFlow's `LogUniformSampler`; draws repeat
until `num_sampled` distinct ids have come, in the order they came.
"""

import tensorflow as tf


def log_uniform_candidates(seed, num_sampled, range_max):
    """(int32 ids [num_sampled], int32 num_tries) from `seed` (int64 [2]);
    needs `num_sampled <= range_max`."""
    log_range = tf.math.log1p(tf.cast(range_max, tf.float64))
    chunk = 2 * num_sampled

    def draw(i):
        u = tf.random.stateless_uniform([chunk], tf.random.experimental.stateless_fold_in(seed, i),
                                        dtype=tf.float64)
        return (tf.cast(tf.exp(u * log_range), tf.int64) - 1) % range_max

    def more(i, values):
        return tf.size(tf.unique(values)[0]) < num_sampled

    def extend(i, values):
        return i + 1, tf.concat([values, draw(i)], 0)

    _, values = tf.while_loop(more, extend, (tf.constant(1), draw(0)),
                              shape_invariants=(tf.TensorShape([]), tf.TensorShape([None])))
    distinct, first_of = tf.unique(values)
    # The draw that brought the last id needed is the last try.
    num_tries = tf.reduce_min(tf.where(tf.equal(first_of, num_sampled - 1))[:, 0]) + 1
    return tf.ensure_shape(tf.cast(distinct[:num_sampled], tf.int32), [num_sampled]), tf.cast(num_tries, tf.int32)
