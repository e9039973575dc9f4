"""ELMo's words packed into encoder inputs, in Python and in the graph.

A token is its row of character ids (`characters.word_char_ids`). One segment
is its words alone; a pair is `A </S> <S> B`: the end- and begin-of-sentence
tokens between them, so the biLM reads the pair as the stream of framed
sentences it was trained on (the encoder frames the whole row itself). A pair
that does not fit is cut longest first, as the original BERT's
`truncate_pair`. Padding is on the right, all-zero tokens. Inputs:
`input_char_ids` int32 [seq, characters] and `input_mask` int32 [seq]; no type
ids.
"""

import numpy as np
import tensorflow as tf

from data.text.segments import truncate_pair
from families.elmo.characters import MAX_CHARACTERS, bos_char_ids, eos_char_ids


def num_specials(ids_b):
    """Tokens packing adds: </S> <S> between a pair, nothing to one segment."""
    return 0 if ids_b is None else 2


def pack_tokens(ids_a, ids_b, seq_length, max_characters=MAX_CHARACTERS):
    """{input_char_ids [seq_length, max_characters], input_mask [seq_length]} int32."""
    if ids_b is None:
        tokens = list(ids_a[:seq_length])
    else:
        if seq_length < 2:
            raise ValueError(f"max_seq_length {seq_length} leaves no room for the </S> <S> between a pair")
        ids_a, ids_b = truncate_pair(ids_a, ids_b, seq_length - 2)
        tokens = ids_a + [eos_char_ids(max_characters), bos_char_ids(max_characters)] + ids_b
    ids = np.zeros((seq_length, max_characters), np.int32)
    if tokens:
        ids[:len(tokens)] = tokens
    mask = np.zeros(seq_length, np.int32)
    mask[:len(tokens)] = 1
    return {"input_char_ids": ids, "input_mask": mask}


def _kept(length_a, length_b, budget):
    """The lengths `truncate_pair` keeps of a pair (ties cut B first, so A keeps
    the odd token): A keeps min(length_a, max(ceil(budget / 2), budget - length_b))."""
    a = tf.minimum(length_a, tf.maximum((budget + 1) // 2, budget - length_b))
    return a, tf.minimum(length_b, budget - a)


def pack_segments(segments, seq_length, max_characters=MAX_CHARACTERS):
    """Ragged segments (one or two) of int32 [batch, (tokens), characters] ->
    dict of int32 [batch, seq_length(, characters)], as `pack_tokens` packs each row."""
    if len(segments) not in (1, 2):
        raise ValueError(f"ELMo packs one or two segments, not {len(segments)}")
    segments = [tf.cast(s, tf.int32) for s in segments]
    seq_length = tf.cast(seq_length, tf.int64)
    if len(segments) == 1:
        tokens = segments[0][:, :seq_length]
    else:
        with tf.control_dependencies([tf.debugging.assert_greater_equal(
                seq_length, tf.constant(2, tf.int64),
                message="seq_length leaves no room for the </S> <S> between a pair")]):
            budget = tf.identity(seq_length - 2)
        a, b = segments
        keep_a, keep_b = _kept(a.row_lengths(), b.row_lengths(), budget)
        batch = a.nrows()

        def column(ids):
            return tf.RaggedTensor.from_tensor(tf.tile(tf.constant([[ids]], tf.int32), [batch, 1, 1]))

        def cut(segment, keep):
            return tf.ragged.boolean_mask(segment, tf.ragged.range(segment.row_lengths()) < keep[:, None])

        tokens = tf.concat([cut(a, keep_a), column(eos_char_ids(max_characters)),
                            column(bos_char_ids(max_characters)), cut(b, keep_b)], axis=1)
    ids = tokens.to_tensor(0, shape=[None, None, max_characters])
    ids = tf.pad(ids, [[0, 0], [0, seq_length - tf.shape(ids, out_type=tf.int64)[1]], [0, 0]])
    ids = tf.ensure_shape(ids, [None, None, max_characters])
    mask = tf.sequence_mask(tokens.row_lengths(), seq_length, tf.int32)
    return {"input_char_ids": ids, "input_mask": mask}
