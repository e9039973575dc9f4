"""SQuAD v1.1 / v2.0 question answering as a TF Serving SavedModel.

`serving_default(question, context)`: string [batch] each. All of
`run_squad.py`'s prediction path runs in the graph: the context is split into
words at SQuAD whitespace and into word pieces, the question is cut to
`max_query_length` pieces, windows of the context start `doc_stride` pieces
apart, the model scores every window, and `tasks/question_answering_answers.py`'s rules
pick the answer (n-best search with max-context windows, the original
`get_final_text`, and for v2.0 the null answer and its threshold).

Outputs (each [batch]): `answer_text` string (the answer as it is written in
the context; "" for no answer), `answer_start`, `answer_end` int32 character
offsets [start, end) in the context as decoded from UTF-8 (-1 for no answer),
`score` float32 (start + end logit of the answer; of the null answer when
there is none), `probability` float32 (its softmax weight in the n-best list)
and, for v2.0, `has_answer` bool and `null_odds` float32 (null score minus the
best non-null score). An empty or token-less context or question still gets
an answer: "" when nothing can be answered.
"""

import collections

import numpy as np
import tensorflow as tf

from data.question_answering import graph_features
from data.text.families import wordpiece_only
from export.serving_module import ServingModule, text_spec
from tasks import question_answering_graph_answers

WARMUP = (("Which city is the capital of France?",
           "Paris is the capital and most populous city of France."),
          ("", ""))

QuestionAnsweringOptions = collections.namedtuple(
    "QuestionAnsweringOptions",
    "max_seq_length doc_stride max_query_length n_best_size max_answer_length "
    "version_2_with_negative null_score_diff_threshold")

_Spans = collections.namedtuple("_Spans", "keys starts ends")
_NONE = np.int64(-1)  # offset of no answer


def folded_words(tokenizer, texts):
    """The original BasicTokenizer's words of each text as strings (lower-cased
    and accent-stripped when uncased): ragged [batch, (words)]. `get_final_text`
    searches these; `GraphTokenizer` computes them on the way to its ids."""
    chars, words, rows = tokenizer._basic_tokenize(texts)  # pylint: disable=protected-access
    strings = tf.strings.unicode_encode(
        tf.RaggedTensor.from_row_starts(chars.cps, words.starts), "UTF-8")
    return tf.RaggedTensor.from_value_rowids(strings, rows, nrows=tf.size(texts, tf.int64))


class SquadAnswerer:
    """The graph from (question, context) strings to answers; `model` maps
    encoder inputs to {"start_logits", "end_logits"}; `text_side` is WordPiece's
    (answers are found over the basic tokenizer's words)."""

    def __init__(self, model, text_side, options):
        wordpiece_only(text_side, "the SQuAD SavedModel")
        self.model = model
        self.options = options
        self.tokenizer = text_side.graph_tokenizer()
        self.special = text_side.special_ids
        self.piece_strings = tf.constant(text_side.vocab.tokens, tf.string)

    def __call__(self, question, context):
        options, tokenizer = self.options, self.tokenizer
        num_rows = tf.size(question, tf.int64)
        words = graph_features.split_doc_words(context)
        word_pieces = tokenizer.tokenize(words.strings).merge_dims(1, 2)  # [doc words, (pieces)]
        context_pieces = tf.RaggedTensor.from_row_splits(
            word_pieces.flat_values, tf.gather(word_pieces.row_splits, words.row_splits))
        piece_words = word_pieces.value_rowids()
        query = tokenizer.tokenize(question).merge_dims(1, 2)[:, :options.max_query_length]
        windows = graph_features.build_windows(query, context_pieces, options.max_seq_length,
                                              options.doc_stride, self.special)
        outputs = self.model(windows.inputs, training=False)
        start_logits, end_logits = outputs["start_logits"], outputs["end_logits"]

        candidates = question_answering_graph_answers.window_candidates(
            start_logits, end_logits, windows, graph_features.max_context(windows, context_pieces),
            options.n_best_size, options.max_answer_length)
        null = question_answering_graph_answers.null_candidates(start_logits, end_logits,
                                                                windows, num_rows)
        if options.version_2_with_negative:
            candidates = question_answering_graph_answers.concat_candidates(candidates, null)
        candidates, splits = question_answering_graph_answers.ranked(candidates, num_rows)

        # One padding entry at the end of each table keeps the gathers of null
        # candidates (whose spans are not used) in range for empty contexts.
        num_words = tf.size(words.strings, tf.int64)
        piece_ids = tf.concat([context_pieces.flat_values, [0]], 0)
        piece_words = tf.concat([piece_words, [num_words]], 0)
        word_strings = tf.concat([words.strings, [""]], 0)
        char_starts = tf.concat([words.char_starts, [0]], 0)
        char_lengths = tf.concat([words.char_lengths, [0]], 0)
        folded = tf.concat([folded_words(tokenizer, words.strings),
                            tf.ragged.constant([[]], tf.string, row_splits_dtype=tf.int64)], 0)

        def spans(c):
            """(dedup key, context start, context end) of candidates `c`."""
            doc_offset = tf.gather(windows.query_lengths, c.windows) + 2
            base = tf.gather(context_pieces.row_splits, c.rows) + tf.gather(windows.starts, c.windows)
            first_piece = base + tf.maximum(c.starts - doc_offset, 0)
            last_piece = base + tf.maximum(c.ends - doc_offset, 0)
            first_word = tf.gather(piece_words, first_piece)
            last_word = tf.gather(piece_words, last_piece)
            span_words = tf.ragged.range(first_word, last_word + 1)
            orig = tf.strings.reduce_join(tf.gather(word_strings, span_words), axis=1, separator=" ")
            tok = tf.strings.reduce_join(tf.gather(folded, span_words).merge_dims(1, 2), axis=1,
                                         separator=" ")
            pieces = tf.gather(self.piece_strings, tf.gather(
                piece_ids, tf.ragged.range(first_piece, last_piece + 1)))
            pred = _piece_text(tf.strings.reduce_join(pieces, axis=1, separator=" "))
            start, end = question_answering_graph_answers.final_text_spans(tok, pred, orig)
            # orig offsets -> context offsets through the words (joined by one space).
            lengths = tf.gather(char_lengths, span_words)
            word_offsets = tf.cumsum(lengths + 1, axis=1, exclusive=True).to_tensor(tf.int64.max)

            def to_context(position):
                j = tf.searchsorted(word_offsets, position[:, None], side="right",
                                    out_type=tf.int64)[:, 0] - 1
                return (tf.gather(char_starts, first_word + j)
                        + position - tf.gather(word_offsets, j, batch_dims=1))

            empty = c.is_null | (start >= end)
            key = tf.strings.substr(orig, start, end - start, unit="UTF8_CHAR")
            return _Spans(tf.where(c.is_null, "", key),
                          tf.where(empty, _NONE, to_context(tf.maximum(start, 0))),
                          tf.where(empty, _NONE, to_context(tf.maximum(end - 1, 0)) + 1))

        kept, count, kept_spans = _n_best(candidates, splits, spans, options.n_best_size)
        return self._answers(context, candidates, null, kept, count, kept_spans)

    def _answers(self, context, candidates, null, kept, count, kept_spans):
        """`predict_example`'s choice among each row's n-best entries."""
        options = self.options
        n_best = options.n_best_size
        valid = tf.range(n_best, dtype=tf.int64)[None, :] < count[:, None]
        safe = tf.where(valid, kept, tf.zeros_like(kept))
        kept_null = tf.gather(candidates.is_null, safe) & valid
        start_logit = tf.where(valid, tf.cast(tf.gather(candidates.start_logits, safe), tf.float64), 0.)
        end_logit = tf.where(valid, tf.cast(tf.gather(candidates.end_logits, safe), tf.float64), 0.)
        has_text = valid & (kept_spans.ends > kept_spans.starts)
        entries_valid = valid
        if options.version_2_with_negative:
            # The null answer joins the entries when the n-best list left it out.
            extra = ~tf.reduce_any(kept_null, axis=1)
            start_logit = tf.concat([start_logit, tf.cast(null.start_logits, tf.float64)[:, None]], 1)
            end_logit = tf.concat([end_logit, tf.cast(null.end_logits, tf.float64)[:, None]], 1)
            entries_valid = tf.concat([valid, extra[:, None]], 1)
            has_text = tf.concat([has_text, tf.zeros_like(extra)[:, None]], 1)
        else:
            # No candidate at all: one empty entry with logits 0.
            entries_valid = entries_valid | ((count == 0)[:, None] & tf.equal(
                tf.range(n_best, dtype=tf.int64)[None, :], 0))
        scores = start_logit + end_logit
        top = tf.reduce_max(tf.where(entries_valid, scores, -np.inf), axis=1, keepdims=True)
        exps = tf.where(entries_valid, tf.exp(scores - top), 0.)
        probabilities = exps / tf.reduce_sum(exps, axis=1, keepdims=True)

        first_text = tf.argmax(tf.cast(has_text, tf.int32), axis=1, output_type=tf.int64)
        found = tf.reduce_any(has_text, axis=1)
        if options.version_2_with_negative:
            chosen = first_text
            null_odds = tf.where(found, null.scores - tf.gather(start_logit, chosen, batch_dims=1)
                                 - tf.gather(end_logit, chosen, batch_dims=1), null.scores)
            answered = found & (null_odds <= options.null_score_diff_threshold)
            null_index = tf.where(extra, tf.cast(n_best, tf.int64), tf.argmax(
                tf.cast(kept_null, tf.int32), axis=1, output_type=tf.int64))
            chosen = tf.where(answered, chosen, null_index)
        else:
            chosen = tf.zeros_like(count)
            answered = has_text[:, 0]
        starts = tf.where(answered, tf.gather(_pad(kept_spans.starts), chosen, batch_dims=1), _NONE)
        ends = tf.where(answered, tf.gather(_pad(kept_spans.ends), chosen, batch_dims=1), _NONE)
        byte_starts = _byte_offsets(context, starts)
        byte_ends = _byte_offsets(context, ends)
        outputs = {
            "answer_text": tf.where(answered, tf.strings.substr(
                context, byte_starts, byte_ends - byte_starts, unit="BYTE"), ""),
            "answer_start": tf.cast(starts, tf.int32),
            "answer_end": tf.cast(ends, tf.int32),
            "score": tf.cast(tf.gather(scores, chosen, batch_dims=1), tf.float32),
            "probability": tf.cast(tf.gather(probabilities, chosen, batch_dims=1), tf.float32),
        }
        if options.version_2_with_negative:
            outputs["has_answer"] = answered
            outputs["null_odds"] = tf.cast(null_odds, tf.float32)
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


def _piece_text(joined):
    """`piece_text`: "new ##ton 's" -> "newton 's", whitespace collapsed."""
    text = tf.strings.regex_replace(tf.strings.regex_replace(joined, " ##", ""), "##", "")
    return tf.strings.strip(tf.strings.regex_replace(text, " +", " "))


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
    `text_side`: the WordPiece text side)."""
    answerer = SquadAnswerer(model, text_side, options)

    @tf.function(input_signature=[text_spec("question"), text_spec("context")])
    def serving_default(question, context):
        return answerer(question, context)

    warmup = [("serving_default", {"question": np.array([q for q, _ in WARMUP], dtype=object),
                                   "context": np.array([c for _, c in WARMUP], dtype=object)})]
    return ServingModule(model, text_side, answerer.tokenizer).save(
        export_dir, {"serving_default": serving_default}, warmup)
