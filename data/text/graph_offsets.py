"""Byte offsets in UTF-8 strings -> character offsets, in the graph.

Serving outputs give positions in characters, as Python's `str` indexes the
text, while the in-graph tokenizer works in bytes. Characters are counted as
`bytes.decode("utf-8", "ignore")` yields them (malformed bytes dropped).
Also the two helpers the in-graph tokenizers share for that: each code
point's UTF-8 length, and each value's row without `value_rowids`' memory.
"""

import tensorflow as tf


def utf8_length(codepoints):
    """Bytes of each code point in UTF-8, int64."""
    return tf.add_n([tf.ones_like(codepoints, tf.int64)]
                    + [tf.cast(codepoints >= b, tf.int64) for b in (0x80, 0x800, 0x10000)])


def row_ids(ragged):
    """The row of each value of `ragged` (int64), as `value_rowids()` gives it:
    that op tiles to [rows, longest row] on the way (a batch of 30,000 words, one
    of them 100,000 characters long, would take 24 GB); this one searches the
    row limits."""
    values = tf.range(tf.shape(ragged.values, out_type=tf.int64)[0])
    return tf.searchsorted(tf.cast(ragged.row_splits[1:], tf.int64), values, side="right", out_type=tf.int64)


def char_offsets(texts, rows, byte_offsets):
    """Character index in `texts[rows[i]]` of the character starting at (or, for
    an end offset, ending just before) `byte_offsets[i]`; int32 [n]."""
    _, starts = tf.strings.unicode_decode_with_offsets(texts, "UTF-8", errors="ignore")
    # One sorted line of all characters: each row's bytes shifted past the previous rows'.
    row_bytes = tf.concat([[0], tf.cumsum(tf.strings.length(texts, unit="BYTE") + 1)], 0)
    line = tf.cast(starts.flat_values, tf.int64) + tf.cast(
        tf.gather(row_bytes, starts.value_rowids()), tf.int64)
    targets = tf.cast(byte_offsets, tf.int64) + tf.cast(tf.gather(row_bytes, rows), tf.int64)
    before = tf.searchsorted(line[None], targets[None], side="left", out_type=tf.int64)[0]
    return tf.cast(before - tf.gather(starts.row_starts(), rows), tf.int32)
