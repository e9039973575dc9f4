"""The arithmetic of the original's sampled softmax, in keras.ops: TensorFlow's
log-uniform (Zipfian) candidate sampler over `range_max` ids, drawn without
repeats (`tf.nn.sampled_softmax_loss`'s default), and its expected counts.

`P(k) = log((k + 2) / (k + 1)) / log(range_max + 1)`, so a vocabulary sorted
most frequent first gives frequent words more samples. Drawing `num_sampled`
distinct ids takes `num_tries` draws; each id's expected count is then
`1 - (1 - P(k)) ** num_tries` (TensorFlow's `-expm1(num_tries * log1p(-P))`),
or `P(k) * num_sampled` when no draw was repeated.
"""

from keras import ops


def probability(ids, range_max):
    """P(k) in float32; `log1p(1 / (k + 1))`, since the ratio (k + 2) / (k + 1)
    rounds away most of its information in float32 for large k."""
    k = ops.cast(ids, "float32")
    return ops.log1p(1.0 / (k + 1.0)) / ops.log1p(ops.cast(range_max, "float32"))


def expected_counts(ids, num_tries, num_sampled, range_max):
    """How often the sampler was expected to draw each of `ids` (any shape) in
    drawing `num_sampled` distinct ids with `num_tries` draws."""
    p = probability(ids, range_max)
    tries = ops.cast(num_tries, "float32")
    return ops.where(ops.equal(num_tries, num_sampled), p * float(num_sampled),
                     -ops.expm1(tries * ops.log1p(-p)))
