"""In-graph packing of word-piece segments into encoder inputs, as `data/text/segments.py`.

[CLS] A [SEP] (B [SEP]), padded to `seq_length`. Segments are truncated from
their ends round-robin (the TF Hub BERT preprocessors' rule); for two
segments that keeps exactly the tokens the original's longest-first
`truncate_pair` keeps, so serving packs as training did.
"""

import collections

import tensorflow as tf
import tensorflow_text as text


# A family's special ids: `cls` the token its pooled vector is read at or
# opens a row with (BERT's [CLS], XLNet's <cls>, GPT's _classify_), `sep`
# what ends or divides segments, `pad`, `mask` (None for a family that does
# not mask), `vocab_size` (every id below it, the specials included).
SpecialIds = collections.namedtuple("SpecialIds", "cls sep pad mask vocab_size")


def special_ids(vocab):
    """The ids packing needs, from a `data.text.vocab.Vocab`."""
    return SpecialIds(vocab.cls_id, vocab.sep_id, vocab.pad_id, vocab.mask_id, len(vocab))


def special_tokens_dict(special):
    """The TF Hub preprocessors' `get_special_tokens_dict()` result: int32
    scalars (no `mask_id` for a family without a mask token)."""
    ids = {"vocab_size": special.vocab_size, "start_of_sequence_id": special.cls,
           "end_of_segment_id": special.sep, "padding_id": special.pad, "mask_id": special.mask}
    return {name: tf.constant(value, tf.int32) for name, value in ids.items() if value is not None}


def flatten_words(segment):
    """Ragged [batch, (words), (pieces)] -> [batch, (pieces)]; one ragged
    dimension passes through ([batch, (pieces)], ELMo's [batch, (words), characters])."""
    return segment.merge_dims(1, 2) if segment.ragged_rank > 1 else segment


@tf.autograph.experimental.do_not_convert  # graph ops only, tensorflow_text's included
def pack_segments(segments, seq_length, special):
    """List of ragged int32 segments [batch, (words)?, (pieces)] -> dict of int32
    [batch, seq_length] `input_word_ids`, `input_mask`, `input_type_ids`.

    `seq_length` may be a Python int or a scalar tensor; it must leave room for
    the special tokens (1 + number of segments).
    """
    segments = [tf.cast(flatten_words(s), tf.int32) for s in segments]
    num_special = len(segments) + 1
    seq_length = tf.convert_to_tensor(seq_length, tf.int32)
    with tf.control_dependencies([tf.debugging.assert_greater_equal(
            seq_length, num_special,
            message=f"seq_length leaves no room for the {num_special} special tokens of "
                    f"{len(segments)} segment(s)")]):
        budget = tf.identity(seq_length - num_special)
    trimmed = text.RoundRobinTrimmer(budget).trim(segments)
    ids, type_ids = text.combine_segments(trimmed, special.cls, special.sep)
    word_ids, mask = text.pad_model_inputs(ids, seq_length, pad_value=special.pad)
    type_ids, _ = text.pad_model_inputs(type_ids, seq_length, pad_value=0)
    return {"input_word_ids": tf.cast(word_ids, tf.int32),
            "input_mask": tf.cast(mask, tf.int32),
            "input_type_ids": tf.cast(type_ids, tf.int32)}

