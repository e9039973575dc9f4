"""XLNet's factorisation orders, drawn in tf.data for every record as it is
read (the original's `_local_perm`), so each epoch trains on new permutations.

An order is `perm_size`-long blocks taken in sequence, the positions inside
every block visited in one shared random order. Targets (chosen positions
that are not `<sep>`/`<cls>`) are predicted in that order: a target sees the
targets before it, never itself; every other token is context, seen by all
and seeing no target. With `reuse_len` the reuse part and the rest are
permuted separately, and the reuse part does not see the rest (the rest sees
all of it), so memory built from the reuse part leaks nothing of the next
record's targets.

Outputs keep the original's names and conventions: `perm_mask` [seq_len,
seq_len] (1 = i may not attend to j), `target_mapping` [num_predict, seq_len]
(one-hot rows, zero rows as padding), `target` and `target_mask`
[num_predict], `input_k` (the tokens), `input_q` (1 at targets), `seg_id`,
`label`. Targets are the tokens themselves: the original shifts the records'
next-token `target` back by one, which gives the same ids at every target.
"""

import tensorflow as tf

from families.xlnet.pretraining import features as X
from data.text.sentencepiece_vocab import SPECIAL_SYMBOLS

_FUNCTIONAL = (SPECIAL_SYMBOLS["<sep>"], SPECIAL_SYMBOLS["<cls>"])


def factorization_order(length, perm_size, seed):
    """int64 [length]: each position's rank in a random order of `perm_size`
    blocks (the same shuffle inside every block), from a stateless `seed`."""
    shuffle = tf.cast(tf.argsort(tf.random.stateless_uniform([perm_size], seed)), tf.int64)
    block_starts = tf.range(length // perm_size, dtype=tf.int64)[:, None] * perm_size
    return tf.reshape(block_starts + shuffle[None, :], [-1])


def local_perm(inputs, is_masked, order):
    """(perm_mask float32 [length, length], target_mask float32 [length]) of
    one part for the factorisation `order` (ranks, `factorization_order`)."""
    functional = tf.reduce_any(tf.equal(inputs[:, None], tf.constant(_FUNCTIONAL, inputs.dtype)), axis=1)
    targets = tf.logical_and(is_masked, tf.logical_not(functional))
    context = tf.logical_and(tf.logical_not(is_masked), tf.logical_not(functional))
    rank = tf.where(context, tf.constant(-1, tf.int64), order)  # context comes first
    # A row sees column j when j is context or comes strictly earlier; targets
    # exclude themselves, other rows (context, <sep>, <cls>) include themselves.
    row_rank = tf.where(targets, rank, rank + 1)
    hidden = tf.logical_and(row_rank[:, None] <= rank[None, :], tf.logical_not(context)[None, :])
    return tf.cast(hidden, tf.float32), tf.cast(targets, tf.float32)


class Permuter:
    """Record features -> the model's permutation-LM inputs, for a stateless seed.

    Example:
    >>> permute = Permuter(seq_len=512, reuse_len=256, perm_size=256, num_predict=85)
    >>> features = permute(parsed_record, seed=tf.constant([12345, 0], tf.int64))
    >>> features["perm_mask"].shape, features["target_mapping"].shape
    (TensorShape([512, 512]), TensorShape([85, 512]))
    """

    def __init__(self, seq_len, reuse_len, perm_size, num_predict):
        parts = [reuse_len, seq_len - reuse_len] if reuse_len > 0 else [seq_len]
        if reuse_len < 0 or reuse_len >= seq_len:
            raise ValueError(f"reuse_len must be in [0, seq_len={seq_len}), got {reuse_len}")
        if perm_size < 1 or any(part % perm_size for part in parts):
            raise ValueError(f"perm_size {perm_size} must divide reuse_len {reuse_len} and "
                             f"seq_len - reuse_len {seq_len - reuse_len} (or seq_len when reuse_len is 0)")
        if num_predict < 1:
            raise ValueError(f"num_predict must be >= 1, got {num_predict}")
        self.seq_len, self.reuse_len, self.perm_size, self.num_predict = seq_len, reuse_len, perm_size, num_predict
        self.parts = parts

    def __call__(self, record, seed):
        inputs = tf.cast(record[X.INPUT], tf.int64)
        is_masked = tf.cast(record[X.IS_MASKED], tf.bool)
        masks, target_masks, start = [], [], 0
        for i, length in enumerate(self.parts):
            order = factorization_order(length, self.perm_size, tf.random.experimental.stateless_fold_in(seed, i))
            perm_mask, target_mask = local_perm(inputs[start:start + length], is_masked[start:start + length], order)
            masks.append(perm_mask)
            target_masks.append(target_mask)
            start += length
        if len(masks) == 2:  # the reuse part does not see the rest; the rest sees it
            reuse, rest = self.parts
            masks = [tf.concat([masks[0], tf.ones([reuse, rest])], axis=1),
                     tf.concat([tf.zeros([rest, reuse]), masks[1]], axis=1)]
        target_mask = tf.concat(target_masks, axis=0)
        positions = tf.where(target_mask > 0)[:self.num_predict, 0]
        padding = [[0, self.num_predict - tf.shape(positions)[0]]]
        return {
            "input_k": tf.cast(inputs, tf.int32),
            "input_q": target_mask,
            "seg_id": tf.cast(record[X.SEG_ID], tf.int32),
            "label": tf.cast(record[X.LABEL], tf.int32),
            "perm_mask": tf.reshape(tf.concat(masks, axis=0), [self.seq_len, self.seq_len]),
            "target_mapping": tf.reshape(tf.pad(tf.one_hot(positions, self.seq_len), padding + [[0, 0]]),
                                         [self.num_predict, self.seq_len]),
            "target": tf.reshape(tf.pad(tf.cast(tf.gather(inputs, positions), tf.int32), padding),
                                 [self.num_predict]),
            "target_mask": tf.reshape(tf.pad(tf.ones_like(positions, tf.float32), padding), [self.num_predict]),
        }
