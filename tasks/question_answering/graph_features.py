"""SQuAD contexts -> words, word pieces and model windows in the graph, as
`tasks/question_answering/squad_reader.py` and `tasks/question_answering/features.py` make them in Python.

Everything is batched: a request of (question, context) rows becomes flat
tensors over all rows' words, pieces and windows, with the row of each. The
window layouts are `features.window_layout`'s in the graph: `QuestionFirst`
(BERT) and `ParagraphFirst` (XLNet).
"""

import collections

import tensorflow as tf

# The original reader's word separators (`tasks.question_answering.squad_reader._SQUAD_WHITESPACE`).
SQUAD_WHITESPACE = (0x20, 0x09, 0x0D, 0x0A, 0x202F)

DocWords = collections.namedtuple("DocWords", "strings rows char_starts char_lengths row_splits")
DocWords.__doc__ = """Context words, flat over the batch: `strings`, their batch `rows`,
their first character's index in the context and length in characters, and
`row_splits` of words per row (int64)."""

Windows = collections.namedtuple("Windows", "rows starts lengths doc_offsets inputs")
Windows.__doc__ = """Model windows, flat over the batch: their `rows`, first context piece
(`starts`, within the row's pieces), number of context pieces (`lengths`),
the window position of the first context piece (`doc_offsets`) and the packed
encoder `inputs`."""


def split_doc_words(contexts):
    """Words of each context split at SQuAD whitespace only (`split_words`)."""
    cps = tf.strings.unicode_decode(contexts, "UTF-8", errors="ignore")
    flat, rows = cps.flat_values, cps.value_rowids()
    index_in_row = tf.range(tf.size(rows, tf.int64)) - tf.gather(cps.row_splits, rows)
    space = tf.reduce_any(tf.equal(flat[:, None], SQUAD_WHITESPACE), axis=1)
    after_space = tf.concat([[True], space[:-1]], 0) | tf.equal(index_in_row, 0)
    opens = ~space & after_space
    word = tf.cumsum(tf.cast(opens, tf.int64)) - 1
    num_words = tf.reduce_sum(tf.cast(opens, tf.int64))
    kept = tf.where(~space)[:, 0]
    chars = tf.RaggedTensor.from_value_rowids(tf.gather(flat, kept), tf.gather(word, kept),
                                              nrows=num_words)
    word_rows = tf.boolean_mask(rows, opens)
    num_rows = tf.size(contexts, tf.int64)
    row_splits = tf.concat([[0], tf.cumsum(tf.math.bincount(
        word_rows, minlength=num_rows, maxlength=num_rows, dtype=tf.int64))], 0)
    return DocWords(tf.strings.unicode_encode(chars, "UTF-8"), word_rows,
                    tf.boolean_mask(index_in_row, opens), chars.row_lengths(), row_splits)


def plan_windows(query_lengths, piece_counts, max_seq_length, doc_stride):
    """`tasks.question_answering.features.doc_spans` of every row: (rows, starts, lengths) int64
    [windows]. A row without context pieces gets one empty window."""
    max_pieces = max_seq_length - query_lengths - 3
    step = tf.minimum(max_pieces, doc_stride)
    extra = tf.maximum(piece_counts - max_pieces, 0)
    counts = 1 + (extra + step - 1) // step
    rows = tf.repeat(tf.range(tf.size(counts, tf.int64)), counts)
    index = tf.range(tf.reduce_sum(counts)) - tf.gather(tf.cumsum(counts, exclusive=True), rows)
    starts = index * tf.gather(step, rows)
    lengths = tf.minimum(tf.gather(piece_counts, rows) - starts, tf.gather(max_pieces, rows))
    return rows, starts, lengths


def max_context(windows, context_pieces):
    """`tasks.question_answering.features.is_max_context` of every context piece of every
    window: bool ragged [windows, (lengths)]."""
    offsets = tf.ragged.range(windows.lengths)
    window, i = offsets.value_rowids(), offsets.flat_values
    length = tf.gather(windows.lengths, window)
    score = (tf.cast(tf.minimum(i, length - 1 - i), tf.float64)
             + 0.01 * tf.cast(length, tf.float64))
    piece = (tf.gather(context_pieces.row_splits, tf.gather(windows.rows, window))
             + tf.gather(windows.starts, window) + i)
    num_pieces = tf.size(context_pieces.flat_values, tf.int64)
    best = tf.math.unsorted_segment_max(score, piece, num_pieces)
    chosen = tf.where(tf.equal(score, tf.gather(best, piece)), window, tf.int64.max)
    first = tf.math.unsorted_segment_min(chosen, piece, num_pieces)
    return offsets.with_flat_values(tf.equal(tf.gather(first, piece), window))


class QuestionFirst:
    """BERT: `[CLS] question [SEP] paragraph [SEP]`, padded on the right."""

    @staticmethod
    def pack(text_side, query_pieces, window_pieces, seq_length):
        return text_side.pack_graph([query_pieces, window_pieces], seq_length)

    @staticmethod
    def doc_offsets(query_lengths, lengths, seq_length):
        return query_lengths + 2


class ParagraphFirst:
    """XLNet: `paragraph <sep> question <sep> <cls>`, padded on the left (an
    empty question packs no second `<sep>`); `<cls>` is the last position."""

    @staticmethod
    def pack(text_side, query_pieces, window_pieces, seq_length):
        return text_side.pack_graph([window_pieces, query_pieces], seq_length)

    @staticmethod
    def doc_offsets(query_lengths, lengths, seq_length):
        return seq_length - lengths - query_lengths - 2 - tf.cast(query_lengths > 0, tf.int64)


def build_windows(query_pieces, context_pieces, max_seq_length, doc_stride, text_side, layout):
    """Packs every window of every row in `layout` (`QuestionFirst`,
    `ParagraphFirst`) with `text_side.pack_graph`. `query_pieces` (already
    cut to max_query_length) and `context_pieces` are int32 ragged [batch, (pieces)]."""
    query_lengths = query_pieces.row_lengths()
    rows, starts, lengths = plan_windows(query_lengths, context_pieces.row_lengths(),
                                         max_seq_length, doc_stride)
    base = tf.gather(context_pieces.row_splits, rows) + starts
    window_pieces = tf.gather(context_pieces.flat_values, tf.ragged.range(base, base + lengths))
    window_queries = tf.gather(query_pieces, rows)
    inputs = layout.pack(text_side, window_queries, window_pieces, max_seq_length)
    doc_offsets = layout.doc_offsets(tf.gather(query_lengths, rows), lengths, max_seq_length)
    return Windows(rows, starts, lengths, doc_offsets, inputs)
