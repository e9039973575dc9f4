"""Start/end logits of SQuAD windows -> answers, in the graph, following
`tasks/question_answering/answers.py` rule for rule: the same candidates in the same
order, float64 scores, the stable ranking, the n-best list of distinct texts,
the original `get_final_text` (including its search of the predicted text in
the basic tokenization of the words it covers) and the null threshold.
"""

import collections

import numpy as np
import tensorflow as tf

_SPACE = 32

Candidates = collections.namedtuple(
    "Candidates", "rows windows starts ends start_logits end_logits scores is_null")
Candidates.__doc__ = """Flat over the batch, in the Python post-processing's order
within each row; `starts`/`ends` are window positions (0, 0 for the null answer).
XLNet's beam fills `start_logits`/`end_logits` with its log-probabilities."""

Choice = collections.namedtuple("Choice", "answered chosen score probability null_odds")
Choice.__doc__ = """Each row's answer among its n-best entries: `answered` bool, `chosen`
int64 (an index into the kept n-best list; `n_best_size` is BERT's extra null
entry), `score` and `probability` float64 of that entry, `null_odds` float64
(None for v1.1)."""


def window_candidates(start_logits, end_logits, windows, is_max_context, n_best_size,
                      max_answer_length):
    """`window_candidates` of every window (non-null candidates)."""
    seq_length = tf.shape(start_logits, tf.int64)[1]
    k = tf.minimum(tf.cast(n_best_size, tf.int64), seq_length)
    best_starts = tf.cast(tf.math.top_k(start_logits, tf.cast(k, tf.int32)).indices, tf.int64)
    best_ends = tf.cast(tf.math.top_k(end_logits, tf.cast(k, tf.int32)).indices, tf.int64)
    dense_max = max_context_at_positions(windows, is_max_context, seq_length)
    starts_ok = (in_context(windows, best_starts)
                 & tf.gather(dense_max, best_starts, batch_dims=1))
    ends_ok = in_context(windows, best_ends)
    s, e = best_starts[:, :, None], best_ends[:, None, :]
    valid = (starts_ok[:, :, None] & ends_ok[:, None, :] & (e >= s)
             & (e - s + 1 <= max_answer_length))
    picked = tf.where(valid)  # row-major: window, start rank, end rank
    window = picked[:, 0]
    start = tf.gather_nd(best_starts, picked[:, :2])
    end = tf.gather_nd(best_ends, tf.stack([window, picked[:, 2]], 1))
    start_logit = tf.gather_nd(start_logits, tf.stack([window, start], 1))
    end_logit = tf.gather_nd(end_logits, tf.stack([window, end], 1))
    return Candidates(tf.gather(windows.rows, window), window, start, end, start_logit, end_logit,
                      tf.cast(start_logit, tf.float64) + tf.cast(end_logit, tf.float64),
                      tf.zeros_like(window, tf.bool))


def max_context_at_positions(windows, is_max_context, seq_length):
    """The max-context flags (ragged [windows, (lengths)]) at window positions:
    bool [windows, seq_length], false outside the context."""
    at = tf.stack([is_max_context.value_rowids(),
                   tf.gather(windows.doc_offsets, is_max_context.value_rowids())
                   + _index_in_row(is_max_context)], 1)
    return tf.scatter_nd(at, is_max_context.flat_values,
                         tf.stack([tf.size(windows.rows, tf.int64), seq_length]))


def in_context(windows, positions):
    """Whether window positions [windows, k] hold context pieces."""
    doc_offset = windows.doc_offsets[:, None]
    return (positions >= doc_offset) & (positions < doc_offset + windows.lengths[:, None])


def null_candidates(start_logits, end_logits, windows, num_rows):
    """`null_candidate` of every row: [CLS] of the window where start + end is
    smallest, the first such window on ties."""
    score = tf.cast(start_logits[:, 0], tf.float64) + tf.cast(end_logits[:, 0], tf.float64)
    window_index = tf.range(tf.size(windows.rows, tf.int64))
    lowest = tf.math.unsorted_segment_min(score, windows.rows, num_rows)
    chosen = tf.where(tf.equal(score, tf.gather(lowest, windows.rows)), window_index, tf.int64.max)
    window = tf.math.unsorted_segment_min(chosen, windows.rows, num_rows)
    zeros = tf.zeros_like(window)
    return Candidates(tf.range(num_rows), window, zeros, zeros, tf.gather(start_logits[:, 0], window),
                      tf.gather(end_logits[:, 0], window), tf.gather(score, window),
                      tf.ones_like(window, tf.bool))


def ranked(candidates, num_rows):
    """Candidates sorted by row, then by descending score, ties in their given
    order (Python's stable `sorted`); and the row_splits of that order."""
    order = tf.argsort(-candidates.scores, stable=True)
    order = tf.gather(order, tf.argsort(tf.gather(candidates.rows, order), stable=True))
    sorted_candidates = Candidates(*(tf.gather(field, order) for field in candidates))
    counts = tf.math.bincount(sorted_candidates.rows, minlength=num_rows, maxlength=num_rows,
                              dtype=tf.int64)
    return sorted_candidates, tf.concat([[0], tf.cumsum(counts)], 0)


def concat_candidates(first, second):
    """`first` then `second`, regrouped by row with each row's `first` part first."""
    both = Candidates(*(tf.concat([a, b], 0) for a, b in zip(first, second)))
    order = tf.argsort(both.rows * 2 + tf.cast(both.is_null, tf.int64), stable=True)
    return Candidates(*(tf.gather(field, order) for field in both))


def find(haystacks, needles):
    """str.find of each needle in its haystack, over codepoints: int64 [n], -1 if absent.
    Both are int32 ragged [n, (chars)]. Searched as UTF-8 bytes (where a valid
    encoding can match only at a character's start), one row at a time: linear in
    the text, where comparing codepoint arrays costs haystack x needle (a served
    100,000-character word took minutes)."""
    hay = tf.strings.unicode_encode(haystacks, "UTF-8")
    needle = tf.strings.unicode_encode(needles, "UTF-8")

    def first(pair):
        parts = tf.strings.split(pair[0], sep=pair[1], maxsplit=1)
        prefix = tf.strings.reduce_join(parts[:1])  # none for an empty haystack
        index = tf.cast(tf.strings.length(prefix, "UTF8_CHAR"), tf.int64)
        return tf.where(tf.size(parts) == 2, index, tf.constant(-1, tf.int64))

    located = tf.map_fn(first, (hay, needle), fn_output_signature=tf.int64)
    # An empty needle is found at 0 (tf.strings.split would split on whitespace).
    return tf.where(tf.equal(needles.row_lengths(), 0), tf.zeros_like(located), located)


def final_text_spans(tok_texts, pred_texts, orig_texts):
    """`final_text_span` of each (pred_text, orig_text): [start, end) int64
    character offsets in `orig_texts`; `tok_texts` are the basic tokenizations
    of `orig_texts` joined by single spaces."""
    tok = tf.strings.unicode_decode(tok_texts, "UTF-8")
    pred = tf.strings.unicode_decode(pred_texts, "UTF-8")
    orig = tf.strings.unicode_decode(orig_texts, "UTF-8")
    start = find(tok, pred)
    end = start + pred.row_lengths() - 1
    tok_kept = tf.cast(tf.not_equal(tok, _SPACE), tf.int64)
    orig_kept = tf.not_equal(orig, _SPACE)
    whole = ((start < 0) | tf.equal(pred.row_lengths(), 0)
             | tf.not_equal(tf.reduce_sum(tok_kept, 1),
                            tf.reduce_sum(tf.cast(orig_kept, tf.int64), 1)))
    # Non-space rank of start and end in tok -> position of that rank in orig
    # (a zero column keeps the gathers defined when every text is empty).
    zero = tf.zeros([tf.size(tok_texts), 1], tf.int64)
    tok_rank = tf.concat([tf.cumsum(tok_kept.to_tensor(), axis=1, exclusive=True), zero], 1)
    orig_positions = tf.concat([tf.ragged.boolean_mask(
        tf.ragged.range(orig.row_lengths()), orig_kept).to_tensor(0), zero], 1)

    def to_orig(position):
        # Rows answered whole may point anywhere: clip, their value is not used.
        position = tf.clip_by_value(position, 0, tf.shape(tok_rank, tf.int64)[1] - 1)
        rank = tf.gather(tok_rank, position, batch_dims=1)
        rank = tf.minimum(rank, tf.shape(orig_positions, tf.int64)[1] - 1)
        return tf.gather(orig_positions, rank, batch_dims=1)

    return (tf.where(whole, tf.zeros_like(start), to_orig(start)),
            tf.where(whole, orig.row_lengths(), to_orig(end) + 1))


def _index_in_row(ragged):
    return tf.range(tf.size(ragged.value_rowids(), tf.int64)) - tf.gather(
        ragged.row_splits, ragged.value_rowids())


def choose_answers(candidates, null, kept, count, kept_spans, options):
    """`predict_example`'s choice among each row's n-best entries (`kept` [batch,
    n_best] indices into `candidates`, `count` of them, their `kept_spans`):
    a `Choice`; `null` are the rows' null candidates."""
    n_best = options.n_best_size
    valid = tf.range(n_best, dtype=tf.int64)[None, :] < count[:, None]
    kept_null = gather_kept(candidates.is_null, kept, valid)
    start_logit = tf.cast(gather_kept(candidates.start_logits, kept, valid), tf.float64)
    end_logit = tf.cast(gather_kept(candidates.end_logits, kept, valid), tf.float64)
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
    probabilities = softmax(scores, entries_valid)

    first_text = tf.argmax(tf.cast(has_text, tf.int32), axis=1, output_type=tf.int64)
    found = tf.reduce_any(has_text, axis=1)
    null_odds = None
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
    return Choice(answered, chosen, tf.gather(scores, chosen, batch_dims=1),
                  tf.gather(probabilities, chosen, batch_dims=1), null_odds)


def gather_kept(values, kept, valid):
    """`values` [candidates] at the `kept` n-best indices [batch, n_best], 0
    (false) where not `valid`: a request none of whose rows has a candidate
    (every context empty) gathers from an empty table."""
    padded = tf.concat([values, tf.zeros([1], values.dtype)], 0)
    return tf.gather(padded, tf.where(valid, kept, tf.size(values, tf.int64)))


def softmax(scores, valid):
    """`softmax` of each row's valid entries of float64 `scores` [batch, n] (0 elsewhere)."""
    top = tf.reduce_max(tf.where(valid, scores, -np.inf), axis=1, keepdims=True)
    exps = tf.where(valid, tf.exp(scores - top), 0.)
    return exps / tf.reduce_sum(exps, axis=1, keepdims=True)


def piece_text(pieces):
    """`piece_text` of string pieces [n, (pieces)]: "new ##ton 's" -> "newton 's",
    whitespace collapsed."""
    joined = tf.strings.reduce_join(pieces, axis=1, separator=" ")
    text = tf.strings.regex_replace(tf.strings.regex_replace(joined, " ##", ""), "##", "")
    return tf.strings.strip(tf.strings.regex_replace(text, " +", " "))
