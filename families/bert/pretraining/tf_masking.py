"""Masked-LM masking in TensorFlow ops, for masking on the fly in tf.data:
a new mask every epoch, for records written by the offline writer (after
restoring their original tokens) or for instances built from raw text.

The rule is the offline writer's: round(masked_lm_prob * length) targets (at
least one, at most max_predictions_per_seq) among tokens other than the
special ones, replaced by [MASK], a random id or themselves; whole-word mode
takes shuffled whole words while they fit, skipping those that do not, as
the original. Randomness comes from a stateless seed, so a given seed always
gives the same masks.
"""

import tensorflow as tf

from data.pretraining import features as F


def mask_tokens(
    input_ids,
    input_mask,
    seed,
    *,
    vocab_size,
    mask_id,
    special_ids,
    max_predictions_per_seq=20,
    masked_lm_prob=0.15,
    mask_token_rate=0.8,
    random_token_rate=0.1,
    is_continuation=None,
):
    """Masks a batch: int [batch, seq] ids and mask, seed int [2] ->
    {input_ids, masked_lm_positions, masked_lm_ids, masked_lm_weights}.

    `is_continuation` (bool [vocab_size], True for '##' pieces) turns on
    whole-word masking.

    Example:
    >>> masked = mask_tokens(ids, mask, [7, 0], vocab_size=30522, mask_id=103,
    ...                      special_ids=[101, 102])
    """
    ids = tf.cast(input_ids, tf.int32)
    shape = tf.shape(ids)
    width = max_predictions_per_seq
    choose_seed, draw_seed, random_seed = tf.unstack(tf.random.experimental.stateless_split(seed, 3))
    candidates = (tf.cast(input_mask, tf.int32) > 0) & ~_isin(ids, special_ids)
    lengths = tf.reduce_sum(tf.cast(input_mask, tf.float32), axis=1)
    budget = tf.cast(tf.clip_by_value(tf.round(lengths * masked_lm_prob), 1.0, float(width)), tf.int32)
    if is_continuation is None:
        chosen = _choose_tokens(candidates, budget, choose_seed)
    else:
        chosen = _choose_words(ids, candidates, budget, tf.constant(is_continuation, tf.bool), choose_seed)

    positions, valid = _first_positions(chosen, width)
    labels = tf.where(valid, tf.gather(ids, positions, batch_dims=1), 0)
    draw = tf.random.stateless_uniform(tf.shape(positions), draw_seed)
    random_ids = tf.random.stateless_uniform(tf.shape(positions), random_seed, 0, vocab_size, tf.int32)
    keep_limit = mask_token_rate + max(0.0, 1.0 - mask_token_rate - random_token_rate)
    replacement = tf.where(draw < mask_token_rate, mask_id, tf.where(draw < keep_limit, labels, random_ids))
    rows = tf.broadcast_to(tf.range(shape[0])[:, None], tf.shape(positions))
    indices = tf.boolean_mask(tf.stack([rows, positions], axis=-1), valid)
    masked = tf.tensor_scatter_nd_update(ids, indices, tf.boolean_mask(replacement, valid))
    return {
        F.INPUT_IDS: masked,
        F.MASKED_LM_POSITIONS: positions,
        F.MASKED_LM_IDS: labels,
        F.MASKED_LM_WEIGHTS: tf.cast(valid, tf.float32),
    }


def restore_original_ids(features):
    """input_ids with the masked positions of a written record given back
    their labels, so the record can be masked anew."""
    ids = tf.cast(features[F.INPUT_IDS], tf.int32)
    positions = tf.cast(features[F.MASKED_LM_POSITIONS], tf.int32)
    valid = features[F.MASKED_LM_WEIGHTS] > 0
    rows = tf.broadcast_to(tf.range(tf.shape(ids)[0])[:, None], tf.shape(positions))
    indices = tf.boolean_mask(tf.stack([rows, positions], axis=-1), valid)
    labels = tf.boolean_mask(tf.cast(features[F.MASKED_LM_IDS], tf.int32), valid)
    return tf.tensor_scatter_nd_update(ids, indices, labels)


class DynamicMasker:
    """`mask_tokens` with a vocabulary and `MaskingOptions`, applied to a
    batch of pretraining features (already masked ones are restored first).

    Example:
    >>> masker = DynamicMasker(Vocab.from_file("vocab.txt"), MaskingOptions())
    >>> dataset = dataset.enumerate().map(lambda i, f: masker(f, tf.stack([seed, i])))
    """

    def __init__(self, vocab, options):
        if options.max_ngram_size > 1:
            raise ValueError("n-gram masking is only available in the offline writer")
        self.vocab = vocab
        self.options = options
        self.is_continuation = (
            [t.startswith("##") for t in vocab.id_to_token] if options.do_whole_word_mask else None
        )

    def __call__(self, features, seed):
        ids = restore_original_ids(features) if F.MASKED_LM_IDS in features else features[F.INPUT_IDS]
        masked = mask_tokens(
            ids,
            features[F.INPUT_MASK],
            seed,
            vocab_size=len(self.vocab),
            mask_id=self.vocab.mask_id,
            special_ids=[self.vocab.cls_id, self.vocab.sep_id],
            max_predictions_per_seq=self.options.max_predictions_per_seq,
            masked_lm_prob=self.options.masked_lm_prob,
            mask_token_rate=self.options.mask_token_rate,
            random_token_rate=self.options.random_token_rate,
            is_continuation=self.is_continuation,
        )
        return {**features, **masked}


def _isin(ids, values):
    return tf.reduce_any(ids[..., None] == tf.constant(values, tf.int32), axis=-1)


def _choose_tokens(candidates, budget, seed):
    """`budget` random candidates per row (all of them if fewer)."""
    keys = tf.where(candidates, tf.random.stateless_uniform(tf.shape(candidates), seed), 2.0)
    rank = tf.argsort(tf.argsort(keys, axis=1, stable=True), axis=1, stable=True)
    return candidates & (rank < budget[:, None])


def _choose_words(ids, candidates, budget, is_continuation, seed):
    """Whole words in random order, each taken if it still fits the budget.
    A '##' piece continues the word before it unless a special token comes between."""
    previous = tf.pad(candidates[:, :-1], [[0, 0], [1, 0]])
    starts = candidates & ~(tf.gather(is_continuation, ids) & previous)
    word = tf.cumsum(tf.cast(starts, tf.int32), axis=1) - 1  # word index of each token
    seq = tf.shape(ids)[1]
    rows = tf.shape(ids)[0]
    flat_word = tf.where(candidates, word + seq * tf.range(rows)[:, None], rows * seq)
    sizes = tf.reshape(
        tf.math.bincount(tf.reshape(flat_word, [-1]), minlength=rows * seq + 1, maxlength=rows * seq + 1)[:-1],
        [rows, seq],
    )
    keys = tf.where(sizes > 0, tf.random.stateless_uniform([rows, seq], seed), 2.0)
    order = tf.argsort(keys, axis=1, stable=True)
    sizes_in_order = tf.gather(sizes, order, batch_dims=1)

    def take(total, size):
        fits = (size > 0) & (total + size <= budget)
        return total + tf.where(fits, size, 0)

    totals = tf.scan(take, tf.transpose(sizes_in_order), initializer=tf.zeros_like(budget))
    before = tf.concat([tf.zeros_like(budget)[None], totals[:-1]], axis=0)
    taken_in_order = tf.transpose(totals > before)
    taken = tf.scatter_nd(
        tf.stack([tf.broadcast_to(tf.range(rows)[:, None], [rows, seq]), order], axis=-1), taken_in_order, [rows, seq]
    )
    return candidates & tf.gather(taken, tf.maximum(word, 0), batch_dims=1)


def _first_positions(chosen, width):
    """The chosen positions of each row in ascending order, padded with 0 to
    `width`, and which of them are real."""
    order = tf.argsort(tf.cast(~chosen, tf.int32), axis=1, stable=True)
    count = tf.reduce_sum(tf.cast(chosen, tf.int32), axis=1)
    order = tf.pad(order, [[0, 0], [0, tf.maximum(width - tf.shape(order)[1], 0)]])[:, :width]
    valid = tf.range(width)[None, :] < count[:, None]
    return tf.where(valid, order, 0), valid
