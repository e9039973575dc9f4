"""GPT's input transformation, as the original's: `_start_ A _classify_` or
`_start_ A _delimiter_ B _classify_`, padded on the right. Each segment is cut
to its share before packing, whatever the other's length (the original cuts
both of a pair to `n_ctx // 2 - 2` tokens, one segment to `n_ctx - 2`).
GPT has no segment types: packing gives `input_word_ids` and `input_mask`
(1 on real tokens), int32."""

import numpy as np
import tensorflow as tf
import tensorflow_text as text

from data.text.graph_segments import flatten_words


def segment_budget(num_segments, seq_length):
    """Tokens each segment keeps (ints or int32 tensors)."""
    if num_segments == 1:
        return seq_length - 2
    return tf.maximum(seq_length // 2 - 2, 0) if tf.is_tensor(seq_length) else max(seq_length // 2 - 2, 0)


def _check_room(num_segments, seq_length):
    if seq_length < num_segments + 1:
        raise ValueError(f"max_seq_length {seq_length} leaves no room for the {num_segments + 1} "
                         f"special tokens of {num_segments} segment(s)")


def pack_ids(ids_a, ids_b, seq_length, specials, pad_id=0):
    """Dict of int32 [seq_length] arrays; `specials` = (start, delimiter, classify) ids."""
    start, delimiter, classify = specials
    segments = [ids_a] if ids_b is None else [ids_a, ids_b]
    _check_room(len(segments), seq_length)
    budget = segment_budget(len(segments), seq_length)
    ids = [start] + list(ids_a[:budget])
    if ids_b is not None:
        ids += [delimiter] + list(ids_b[:budget])
    ids.append(classify)
    padding = seq_length - len(ids)
    return {"input_word_ids": np.array(ids + [pad_id] * padding, np.int32),
            "input_mask": np.array([1] * len(ids) + [0] * padding, np.int32)}


def pack_segments(segments, seq_length, specials, pad_id=0):
    """Ragged segments (one or two; [batch, (words)?, (pieces)]) -> dict of int32
    [batch, seq_length], as `pack_ids` packs each row."""
    if len(segments) not in (1, 2):
        raise ValueError(f"GPT packs one or two segments, not {len(segments)}")
    segments = [tf.cast(flatten_words(s), tf.int32) for s in segments]
    seq_length = tf.convert_to_tensor(seq_length, tf.int32)
    with tf.control_dependencies([tf.debugging.assert_greater_equal(
            seq_length, len(segments) + 1,
            message=f"seq_length leaves no room for the special tokens of {len(segments)} segment(s)")]):
        budget = tf.identity(segment_budget(len(segments), seq_length))
    batch = segments[0].nrows()

    def column(token):
        return tf.RaggedTensor.from_tensor(tf.fill([batch, 1], tf.constant(token, tf.int32)))

    def cut(segment):
        return tf.ragged.boolean_mask(segment, tf.ragged.range(segment.row_lengths()) < tf.cast(
            budget, segment.row_splits.dtype))

    start, delimiter, classify = specials
    parts = [column(start), cut(segments[0])]
    if len(segments) == 2:
        parts += [column(delimiter), cut(segments[1])]
    ids = tf.concat(parts + [column(classify)], axis=1)
    word_ids, mask = text.pad_model_inputs(ids, seq_length, pad_value=pad_id)
    return {"input_word_ids": tf.cast(word_ids, tf.int32), "input_mask": tf.cast(mask, tf.int32)}
