"""In-graph packing of XLNet segments, as `families/xlnet/segments.py`:
A <sep> (B <sep>) <cls>, padded on the left, segment ids 0/1/2 (4 on padding).

The input mask follows the encoder interface (1 on real tokens). A row whose
B is empty packs A alone, and a pair is cut longest first with ties taken
from B, exactly as the original's one-token-at-a-time `truncate_pair`, so
serving packs as training did.
"""

import tensorflow as tf

from data.text.graph_segments import flatten_words
from families.xlnet.segments import SEG_ID_A, SEG_ID_B, SEG_ID_CLS, SEG_ID_PAD


def kept_lengths(len_a, len_b, budget):
    """Tokens of A and B that `truncate_pair` keeps within `budget`, per row:
    the shorter stays whole when it fits in half, else A keeps the ceiling half."""
    keep_b = tf.minimum(len_b, tf.maximum(budget - len_a, budget // 2))
    return tf.minimum(len_a, budget - keep_b), keep_b


def _prefix(segment, length):
    return tf.ragged.boolean_mask(segment, tf.ragged.range(segment.row_lengths()) < length[:, None])


def _like(segment, value):
    return segment.with_flat_values(tf.fill(tf.shape(segment.flat_values), value))


def _column(value, rows):
    """Ragged [batch, (0 or 1)]: `value` in the rows where `rows` is true."""
    return tf.RaggedTensor.from_row_lengths(
        tf.fill([tf.reduce_sum(tf.cast(rows, tf.int32))], value), tf.cast(rows, tf.int64))


def _left_pad(rows, seq_length, pad_value):
    """Ragged [batch, (n <= seq_length)] -> [batch, seq_length], rows flush right."""
    lengths = rows.row_lengths()
    positions = tf.range(seq_length, dtype=tf.int64)[None, :] - (seq_length - lengths)[:, None]
    flat = tf.gather(rows.flat_values, rows.row_starts()[:, None] + tf.maximum(positions, 0))
    return tf.where(positions >= 0, flat, pad_value)


def pack_xlnet_segments(segments, seq_length, sep_id, cls_id, pad_id=0):
    """One or two ragged int32 segments [batch, (words)?, (pieces)] -> dict of
    int32 [batch, seq_length] `input_word_ids`, `input_mask`, `input_type_ids`.
    `seq_length` is a Python int or a scalar tensor."""
    if len(segments) not in (1, 2):
        raise ValueError(f"XLNet packs one or two segments, got {len(segments)}")
    segments = [tf.cast(flatten_words(s), tf.int32) for s in segments]
    a = segments[0]
    b = segments[1] if len(segments) == 2 else a[:, :0]
    seq_length = tf.cast(tf.convert_to_tensor(seq_length), tf.int64)
    has_b = b.row_lengths() > 0
    budget = seq_length - 2 - tf.cast(has_b, tf.int64)
    with tf.control_dependencies([tf.debugging.assert_non_negative(
            budget, message="seq_length leaves no room for <sep>/<cls>")]):
        keep_a, keep_b = kept_lengths(a.row_lengths(), b.row_lengths(), tf.identity(budget))
    a, b = _prefix(a, keep_a), _prefix(b, keep_b)
    rows = tf.shape(has_b)[0]
    every_row = tf.ones([rows], tf.bool)
    word_ids = tf.concat([a, _column(sep_id, every_row), b, _column(sep_id, has_b),
                          _column(cls_id, every_row)], axis=1)
    type_ids = tf.concat([_like(a, SEG_ID_A), _column(SEG_ID_A, every_row),
                          _like(b, SEG_ID_B), _column(SEG_ID_B, has_b),
                          _column(SEG_ID_CLS, every_row)], axis=1)
    return {"input_word_ids": _left_pad(word_ids, seq_length, pad_id),
            "input_mask": _left_pad(tf.ones_like(word_ids), seq_length, 0),
            "input_type_ids": _left_pad(type_ids, seq_length, SEG_ID_PAD)}
