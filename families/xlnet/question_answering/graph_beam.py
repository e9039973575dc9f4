"""XLNet's start x end beam of SQuAD windows -> answers, in the graph, following
`families/xlnet/question_answering/beam.py` rule for rule: the same candidates in the
same order, float64 scores, the n-best list of distinct texts (a span of bare
word-start markers has the text ""), the prediction (v2.0: the best entry with
a text) and the null odds (the smallest `cls_logits` over the question's
windows), answered "" past `null_score_diff_threshold` as scoring does.
"""

import tensorflow as tf

from families.xlnet.question_answering.beam import NO_CANDIDATE_LOG_PROB
from families.xlnet.tokenizer import SPIECE_UNDERLINE
from tasks.question_answering.graph_answers import (Candidates, Choice, gather_kept, in_context,
                                                    max_context_at_positions, softmax)

BEAM_OUTPUTS = ("start_top_log_probs", "start_top_index", "end_top_log_probs", "end_top_index")


def beam_candidates(outputs, windows, is_max_context, seq_length, max_answer_length):
    """`beam_candidates` of every window: the i-th top start paired with beam
    entries i * end_n_top .. (i + 1) * end_n_top - 1, window by window."""
    start_log_probs, start_index, end_log_probs, end_index = (outputs[k] for k in BEAM_OUTPUTS)
    end_n_top = tf.shape(end_index)[1] // tf.shape(start_index)[1]
    starts = tf.repeat(tf.cast(start_index, tf.int64), end_n_top, axis=1)
    start_log_probs = tf.repeat(start_log_probs, end_n_top, axis=1)
    ends = tf.cast(end_index, tf.int64)
    dense_max = max_context_at_positions(windows, is_max_context, seq_length)
    valid = (in_context(windows, starts) & in_context(windows, ends)
             & tf.gather(dense_max, starts, batch_dims=1)
             & (ends >= starts) & (ends - starts + 1 <= max_answer_length))
    picked = tf.where(valid)  # row-major: window, then beam entry
    window = picked[:, 0]
    start_log_prob = tf.gather_nd(start_log_probs, picked)
    end_log_prob = tf.gather_nd(end_log_probs, picked)
    return Candidates(tf.gather(windows.rows, window), window, tf.gather_nd(starts, picked),
                      tf.gather_nd(ends, picked), start_log_prob, end_log_prob,
                      tf.cast(start_log_prob, tf.float64) + tf.cast(end_log_prob, tf.float64),
                      tf.zeros_like(window, tf.bool))


def null_scores(cls_logits, windows, num_rows):
    """`score_null` of every row: the smallest answer-class logit of its windows,
    float64 [batch]."""
    return tf.math.unsorted_segment_min(tf.cast(cls_logits, tf.float64), windows.rows, num_rows)


def choose_beam_answers(candidates, null_odds, kept, count, kept_spans, options):
    """`predict_example_beam`'s prediction among each row's n-best entries, as a
    `Choice`: the first entry with a text (v1.1: the first entry), answered when
    it has a text and (v2.0) `null_odds <= null_score_diff_threshold`. A row
    without candidates has the original's one empty entry."""
    n_best = options.n_best_size
    first = tf.equal(tf.range(n_best, dtype=tf.int64)[None, :], 0)
    valid = tf.range(n_best, dtype=tf.int64)[None, :] < count[:, None]
    placeholder = (count == 0)[:, None] & first

    def log_probs(values):
        kept_values = tf.cast(gather_kept(values, kept, valid), tf.float64)
        return tf.where(placeholder, tf.constant(NO_CANDIDATE_LOG_PROB, tf.float64), kept_values)

    scores = log_probs(candidates.start_logits) + log_probs(candidates.end_logits)
    probabilities = softmax(scores, valid | placeholder)
    has_text = valid & (kept_spans.ends > kept_spans.starts)
    if options.version_2_with_negative:
        chosen = tf.argmax(tf.cast(has_text, tf.int32), axis=1, output_type=tf.int64)
        answered = tf.reduce_any(has_text, axis=1) & (
            null_odds <= options.null_score_diff_threshold)
    else:
        chosen, null_odds = tf.zeros_like(count), None
        answered = has_text[:, 0]
    return Choice(answered, chosen, tf.gather(scores, chosen, batch_dims=1),
                  tf.gather(probabilities, chosen, batch_dims=1), null_odds)


def sentencepiece_text(pieces):
    """`sentencepiece_text` of string pieces [n, (pieces)]: "▁new ton" -> "newton"."""
    joined = tf.strings.reduce_join(pieces, axis=1)
    return tf.strings.strip(tf.strings.regex_replace(joined, SPIECE_UNDERLINE, " "))
