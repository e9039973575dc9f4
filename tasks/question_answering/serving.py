"""SQuAD v1.1 / v2.0 question answering as a TF Serving SavedModel.

`serving_default(question, context)`: string [batch] each. All of
`run_squad.py`'s prediction path runs in the graph: the context is split into
words at SQuAD whitespace and into pieces, the question is cut to
`max_query_length` pieces, windows of the context start `doc_stride` pieces
apart, the model scores every window, and the family's head is read as
`tasks/question_answering/heads.py` reads it in Python (`graph_head`): BERT's
start/end logits by `tasks/question_answering/answers.py`'s rules (n-best
search with max-context windows, the original `get_final_text`, and for v2.0
the null answer and its threshold), XLNet's start x end beam by
`families/xlnet/question_answering/beam.py`'s (the same span rules and
`get_final_text`; the null odds are the smallest answer-class logit of the
question's windows, answered "" past the threshold as scoring does), GPT's
start/end logits over its own windows by BERT's rules, `get_final_text`
searching the piece text of GPT's BPE pieces
(`families/gpt/question_answering/graph_head.py`).

Each context word is tokenized alone. For XLNet the Python features tokenize
the whole paragraph and cut its pieces at word starts: the two differ only
where SentencePiece breaks a tie between two segmentations of a word by the
text before it.

Outputs (each [batch]): `answer_text` string (the answer as it is written in
the context; "" for no answer), `answer_start`, `answer_end` int32 character
offsets [start, end) in the context as decoded from UTF-8 (-1 for no answer),
`score` float32 (BERT: start + end logit of the answer, of the null answer
when there is none; XLNet: start + end log-probability of the predicted span,
answered or not), `probability` float32 (its softmax weight in the n-best
list) and, for v2.0, `has_answer` bool and `null_odds` float32 (BERT: null
score minus the best non-null score; XLNet: the null score). An empty or
token-less context or question still gets an answer: "" when nothing can be
answered.
"""

import collections

import numpy as np
import tensorflow as tf

from data.text.graph_segments import flatten_words
from export.serving_module import ServingModule, text_spec
from tasks.question_answering import (graph_answers as question_answering_graph_answers,
                                      graph_features)
from tasks.question_answering.graph_heads import graph_head

WARMUP = (("Which city is the capital of France?",
           "Paris is the capital and most populous city of France."),
          ("", ""))

QuestionAnsweringOptions = collections.namedtuple(
    "QuestionAnsweringOptions",
    "max_seq_length doc_stride max_query_length n_best_size max_answer_length "
    "version_2_with_negative null_score_diff_threshold")

_Spans = collections.namedtuple("_Spans", "keys starts ends")
_NONE = np.int64(-1)  # offset of no answer


class SquadAnswerer:
    """The graph from (question, context) strings to answers; `model` is the
    family's span labeler and `text_side` its text side, which picks the
    reader of its outputs (`graph_head`)."""

    def __init__(self, model, text_side, options):
        self.model = model
        self.options = options
        self.text_side = text_side
        self.head = graph_head(text_side.family)
        self.tokenizer = text_side.graph_tokenizer()
        self.final_text_words = self.head.final_text_words(text_side, self.tokenizer)

    def __call__(self, question, context):
        options, tokenizer, head = self.options, self.tokenizer, self.head
        num_rows = tf.size(question, tf.int64)
        words = graph_features.split_doc_words(context)
        word_pieces, piece_strings = head.word_pieces(self.text_side, tokenizer, words.strings)
        context_pieces = tf.RaggedTensor.from_row_splits(
            word_pieces.flat_values, tf.gather(word_pieces.row_splits, words.row_splits))
        piece_words = word_pieces.value_rowids()
        query = flatten_words(tokenizer.tokenize(question))[:, :options.max_query_length]
        windows = graph_features.build_windows(query, context_pieces, options.max_seq_length,
                                              options.doc_stride, self.text_side, head.layout)
        outputs = self.model({**windows.inputs,
                              **head.model_inputs(windows, options.max_seq_length)},
                             training=False)
        candidates, null = head.candidates(
            outputs, windows, graph_features.max_context(windows, context_pieces), options,
            num_rows)
        candidates, splits = question_answering_graph_answers.ranked(candidates, num_rows)

        # One padding entry at the end of each table keeps the gathers of null
        # candidates (whose spans are not used) in range for empty contexts.
        folded = tf.concat([self.final_text_words(words.strings, piece_strings),
                            tf.ragged.constant([[]], tf.string, row_splits_dtype=tf.int64)], 0)
        num_words = tf.size(words.strings, tf.int64)
        piece_strings = tf.concat([piece_strings.flat_values, [""]], 0)
        piece_words = tf.concat([piece_words, [num_words]], 0)
        word_strings = tf.concat([words.strings, [""]], 0)
        char_starts = tf.concat([words.char_starts, [0]], 0)
        char_lengths = tf.concat([words.char_lengths, [0]], 0)

        def spans(c):
            """(dedup key, context start, context end) of candidates `c`."""
            doc_offset = tf.gather(windows.doc_offsets, c.windows)
            base = tf.gather(context_pieces.row_splits, c.rows) + tf.gather(windows.starts, c.windows)
            first_piece = base + tf.maximum(c.starts - doc_offset, 0)
            last_piece = base + tf.maximum(c.ends - doc_offset, 0)
            first_word = tf.gather(piece_words, first_piece)
            last_word = tf.gather(piece_words, last_piece)
            span_words = tf.ragged.range(first_word, last_word + 1)
            orig = tf.strings.reduce_join(tf.gather(word_strings, span_words), axis=1, separator=" ")
            tok = tf.strings.reduce_join(tf.gather(folded, span_words).merge_dims(1, 2), axis=1,
                                         separator=" ")
            pieces = tf.gather(piece_strings, tf.ragged.range(first_piece, last_piece + 1))
            pred, blank = head.span_text(pieces)
            start, end = question_answering_graph_answers.final_text_spans(tok, pred, orig)
            # orig offsets -> context offsets through the words (joined by one space).
            lengths = tf.gather(char_lengths, span_words)
            word_offsets = tf.cumsum(lengths + 1, axis=1, exclusive=True).to_tensor(tf.int64.max)

            def to_context(position):
                j = tf.searchsorted(word_offsets, position[:, None], side="right",
                                    out_type=tf.int64)[:, 0] - 1
                return (tf.gather(char_starts, first_word + j)
                        + position - tf.gather(word_offsets, j, batch_dims=1))

            empty = c.is_null | blank | (start >= end)
            key = tf.strings.substr(orig, start, end - start, unit="UTF8_CHAR")
            return _Spans(tf.where(c.is_null | blank, "", key),
                          tf.where(empty, _NONE, to_context(tf.maximum(start, 0))),
                          tf.where(empty, _NONE, to_context(tf.maximum(end - 1, 0)) + 1))

        kept, count, kept_spans = _n_best(candidates, splits, spans, options.n_best_size)
        choice = head.choose(candidates, null, kept, count, kept_spans, options)
        return _outputs(context, choice, kept_spans, options.version_2_with_negative)


def _outputs(context, choice, kept_spans, version_2_with_negative):
    """The signature's outputs of each row's `Choice`."""
    answered = choice.answered
    starts = tf.where(answered, tf.gather(_pad(kept_spans.starts), choice.chosen, batch_dims=1),
                      _NONE)
    ends = tf.where(answered, tf.gather(_pad(kept_spans.ends), choice.chosen, batch_dims=1), _NONE)
    byte_starts = _byte_offsets(context, starts)
    byte_ends = _byte_offsets(context, ends)
    outputs = {
        "answer_text": tf.where(answered, tf.strings.substr(
            context, byte_starts, byte_ends - byte_starts, unit="BYTE"), ""),
        "answer_start": tf.cast(starts, tf.int32),
        "answer_end": tf.cast(ends, tf.int32),
        "score": tf.cast(choice.score, tf.float32),
        "probability": tf.cast(choice.probability, tf.float32),
    }
    if version_2_with_negative:
        outputs["has_answer"] = answered
        outputs["null_odds"] = tf.cast(choice.null_odds, tf.float32)
    return outputs


def _n_best(candidates, splits, spans, n_best_size):
    """`rank_candidates`: per row, the first `n_best_size` candidates in ranked
    order with distinct texts (the null answer always kept). Returns kept
    indices [batch, n_best] into `candidates`, their count [batch] and their
    `_Spans`."""
    num_rows = tf.size(splits, tf.int64) - 1
    counts = splits[1:] - splits[:-1]
    shape = tf.stack([num_rows, n_best_size])
    state = (tf.constant(0, tf.int64), tf.zeros(shape, tf.int64), tf.zeros([num_rows], tf.int64),
             _Spans(tf.fill(shape, ""), tf.fill(shape, tf.constant(-1, tf.int64)),
                    tf.fill(shape, tf.constant(-1, tf.int64))))

    def active(rank, count):
        return (count < n_best_size) & (rank < counts)

    def step(rank, kept, count, kept_spans):
        live = active(rank, count)
        index = tf.where(live, splits[:-1] + rank, tf.zeros_like(rank))
        c = question_answering_graph_answers.Candidates(
            *(tf.gather(field, index) for field in candidates))
        new = spans(c)
        seen = tf.reduce_any(tf.equal(kept_spans.keys, new.keys[:, None])
                             & (tf.range(n_best_size, dtype=tf.int64)[None, :] < count[:, None]), 1)
        add = live & (c.is_null | ~seen)
        at = tf.stack([tf.where(add)[:, 0], tf.boolean_mask(count, add)], 1)

        def put(table, values):
            return tf.tensor_scatter_nd_update(table, at, tf.boolean_mask(values, add))

        kept_spans = _Spans(*(put(t, v) for t, v in zip(kept_spans, new)))
        return rank + 1, put(kept, index), count + tf.cast(add, tf.int64), kept_spans

    _, kept, count, kept_spans = tf.while_loop(
        lambda rank, kept, count, kept_spans: tf.reduce_any(active(rank, count)), step, state)
    return kept, count, kept_spans


def _pad(table):
    """One more column (-1), addressed by the v2.0 extra null entry."""
    return tf.concat([table, tf.fill([tf.shape(table)[0], 1], tf.constant(-1, table.dtype))], 1)


def _byte_offsets(texts, char_offsets):
    """Byte offset of character `char_offsets[i]` of `texts[i]` (its length past
    the last character; 0 for -1)."""
    _, starts = tf.strings.unicode_decode_with_offsets(texts, "UTF-8", errors="ignore")
    lengths = tf.RaggedTensor.from_tensor(tf.strings.length(texts, unit="BYTE")[:, None])
    bounds = tf.concat([tf.cast(starts, tf.int64), tf.cast(lengths, tf.int64)], axis=1)
    position = tf.minimum(tf.maximum(char_offsets, 0), starts.row_lengths())
    return tf.cast(tf.gather(bounds.flat_values, bounds.row_starts() + position), tf.int32)


def save_question_answering(export_dir, model, text_side, options):
    """Writes the SQuAD SavedModel (`options`: a `QuestionAnsweringOptions`;
    `model`: the family's span labeler, `text_side`: its text side)."""
    answerer = SquadAnswerer(model, text_side, options)

    @tf.function(input_signature=[text_spec("question"), text_spec("context")])
    def serving_default(question, context):
        return answerer(question, context)

    warmup = [("serving_default", {"question": np.array([q for q, _ in WARMUP], dtype=object),
                                   "context": np.array([c for _, c in WARMUP], dtype=object)})]
    return ServingModule(model, text_side, answerer.tokenizer).save(
        export_dir, {"serving_default": serving_default}, warmup)


def serve(export_dir, model, meta):
    """The SQuAD SavedModel of a fine-tuning run's `ExportMeta`."""
    options = QuestionAnsweringOptions(max_seq_length=meta.max_seq_length,
                                       doc_stride=meta.doc_stride, **meta.squad)
    return save_question_answering(export_dir, model, meta.text_side(), options)
