"""Per-character rewrites (lower-casing, accent stripping, ftfy's fixes)
applied inside a TensorFlow graph: a table made once in Python from the
function itself, then looked up for every codepoint, so that a graph
tokenizer changes exactly the characters its Python twin changes."""

import numpy as np
import tensorflow as tf

from data.text import unicode_tables as ut


def char_map(fn, codepoints=None):
    """(keys, row_splits, values) int32: each codepoint (of `codepoints`,
    default every assigned one) whose `fn(chr(cp))` is not itself, replaced by
    values[row_splits[i]:row_splits[i + 1]]; keys sorted when `codepoints` are."""
    keys, splits, values = [], [0], []
    for cp in ut.assigned_codepoints() if codepoints is None else codepoints:
        out = fn(chr(cp))
        if out != chr(cp):
            keys.append(cp)
            values.extend(map(ord, out))
            splits.append(len(values))
    return tuple(np.asarray(a, np.int32) for a in (keys, splits, values))


def map_chars(cps, table):
    """Flat codepoints with each mapped one replaced by its values (maybe
    none): (codepoints, source index of each) of the result."""
    keys, splits, values = (tf.constant(t) for t in table)
    index = tf.minimum(tf.searchsorted(keys, cps), tf.size(keys) - 1)
    hit = tf.equal(tf.gather(keys, index), cps)
    starts = tf.where(hit, tf.gather(splits, index), tf.size(values) + tf.range(tf.size(cps)))
    lengths = tf.where(hit, tf.gather(splits, index + 1) - starts, 1)
    positions = tf.ragged.range(starts, starts + lengths)
    return tf.gather(tf.concat([values, cps], 0), positions.flat_values), positions.value_rowids()


def map_ragged_chars(cps, table):
    """Ragged codepoints [batch, (n)] with each mapped codepoint replaced by its values."""
    mapped, source = map_chars(cps.flat_values, table)
    rows = tf.gather(cps.value_rowids(), source)
    return tf.RaggedTensor.from_value_rowids(mapped, rows, nrows=cps.nrows())
