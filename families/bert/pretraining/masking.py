"""Language-model targets for the offline writer, in NumPy over a batch of
instances at once: masked-LM masking (token, whole-word or n-gram) and the
next-token targets of left-to-right data.

Masking follows the original: round(masked_lm_prob * length) targets (at
least one, at most max_predictions_per_seq) chosen among tokens other than
[CLS]/[SEP], each replaced by [MASK], a random vocabulary id or itself. In
whole-word mode words do not cross [CLS]/[SEP]; n-grams of up to
`max_ngram_size` words are drawn with weights 1/n as in the TF Model
Garden, and the replacement is drawn per token in every mode.
"""

import bisect
import itertools
from typing import NamedTuple

import numpy as np


class LmTargets(NamedTuple):
    input_ids: np.ndarray  # [batch, seq] after replacement
    positions: np.ndarray  # [batch, width], ascending, 0 where unused
    label_ids: np.ndarray  # [batch, width], 0 where unused
    weights: np.ndarray  # [batch, width] float32, 1.0 for real targets


def num_to_predict(lengths, masked_lm_prob, max_predictions):
    """min(max_predictions, max(1, round(length * prob))) with Python's rounding."""
    return np.clip(np.rint(lengths * masked_lm_prob).astype(np.int64), 1, max_predictions)


class Masker:
    """Chooses and applies masked-LM targets.

    Example:
    >>> masker = Masker(MaskingOptions(), vocab_size=30522, cls_id=101, sep_id=102,
    ...                 mask_id=103, is_continuation=tokenizer.continuation_table())
    >>> targets = masker(input_ids, lengths, random.Random(0))
    """

    def __init__(self, options, vocab_size, cls_id, sep_id, mask_id, is_continuation=None):
        if options.do_whole_word_mask and is_continuation is None:
            raise ValueError("whole-word masking needs the vocabulary's '##' continuation table")
        self.options = options
        self.vocab_size = vocab_size
        self.cls_id, self.sep_id, self.mask_id = cls_id, sep_id, mask_id
        self.is_continuation = is_continuation

    def __call__(self, input_ids, lengths, rng):
        """`rng`: a `random.Random` or NumPy Generator, or `BlockDraws` to give
        each block of rows its own."""
        if not isinstance(rng, BlockDraws):
            rng = BlockDraws.single(len(input_ids), rng)
        width = self.options.max_predictions_per_seq
        candidates = (np.arange(input_ids.shape[1]) < lengths[:, None])
        candidates &= (input_ids != self.cls_id) & (input_ids != self.sep_id)
        budget = num_to_predict(lengths, self.options.masked_lm_prob, width)
        if self.options.do_whole_word_mask:
            positions, valid = self._select_words(input_ids, candidates, budget, rng)
        else:
            positions, valid = select_tokens(candidates, budget, width, rng)
        return self._replace(input_ids, positions, valid, rng)

    def _select_words(self, input_ids, candidates, budget, rng):
        spans = word_spans(input_ids, candidates, self.is_continuation)
        width = self.options.max_predictions_per_seq
        positions = np.zeros((len(input_ids), width), dtype=np.int64)
        valid = np.zeros((len(input_ids), width), dtype=bool)
        for row, (starts, ends) in enumerate(spans):
            chosen = select_ngrams(starts, ends, self.options.max_ngram_size, int(budget[row]), rng.row(row))
            chosen.sort()
            positions[row, : len(chosen)] = chosen
            valid[row, : len(chosen)] = True
        return positions, valid

    def _replace(self, input_ids, positions, valid, rng):
        rows = np.arange(len(input_ids))[:, None]
        labels = np.where(valid, input_ids[rows, positions], 0)
        draw = rng.random(positions.shape)
        random_ids = rng.integers(0, self.vocab_size, positions.shape)
        mask_rate = self.options.mask_token_rate
        keep_limit = mask_rate + self.options.keep_token_rate
        replacement = np.where(draw < mask_rate, self.mask_id, np.where(draw < keep_limit, labels, random_ids))
        masked = input_ids.copy()
        masked[np.broadcast_to(rows, positions.shape)[valid], positions[valid]] = replacement[valid]
        return LmTargets(masked, np.where(valid, positions, 0), labels, valid.astype(np.float32))


class BlockDraws:
    """Random numbers for a batch whose rows come in blocks (the instances of
    one document), each block drawn from its own stream: a document is masked
    the same whatever shares its batch.

    A block's stream is SplitMix64 (Steele et al., 2014) from its 64-bit key,
    one sequence per call (keys, replacements, random ids) counted over the
    block's rows: whole-array work for the batch, nothing per document but
    its key. `generators` (one per block, with `random()` and `shuffle()`)
    serve the per-row draws of whole-word masking.

    Example:
    >>> draws = BlockDraws([7, 8], [3, 2], [random.Random(7), random.Random(8)])
    >>> draws.random((5, 128)).shape
    (5, 128)
    """

    def __init__(self, keys, sizes, generators):
        self.sizes, self.generators = list(sizes), list(generators)
        self._owner = np.repeat(np.arange(len(self.sizes)), self.sizes)
        starts = np.repeat(np.cumsum([0] + self.sizes[:-1]), self.sizes)
        self._row_in_block = (np.arange(len(self._owner)) - starts).astype(np.uint64)
        self._keys = np.array(keys, dtype=np.uint64)[self._owner]
        self._calls = 0

    @classmethod
    def single(cls, rows, rng):
        """One block of `rows` rows from a `random.Random` or a NumPy Generator."""
        key = rng.getrandbits(64) if hasattr(rng, "getrandbits") else int(rng.integers(0, 2**63))
        return cls([key], [rows], [rng])

    def random(self, shape, dtype=np.float64):
        """Uniform in [0, 1): float64 from 53 random bits, float32 from 24."""
        bits = self._bits(shape)
        if np.dtype(dtype) == np.float32:
            return ((bits >> np.uint64(40)).astype(np.float32) * np.float32(2.0**-24)).astype(np.float32)
        return (bits >> np.uint64(11)).astype(np.float64) * 2.0**-53

    def integers(self, low, high, shape):
        """Uniform in [low, high), from 53-bit uniforms (bias below 2**-30 for a vocabulary)."""
        return low + (self.random(shape) * (high - low)).astype(np.int64)

    def row(self, index):
        """The generator of row `index`."""
        return self.generators[self._owner[index]]

    def _bits(self, shape):
        if shape[0] != len(self._owner):
            raise ValueError(f"{shape[0]} rows asked of draws for {len(self._owner)}")
        self._calls += 1
        width = int(np.prod(shape[1:]))
        seeds = _mix(self._keys ^ np.uint64(self._calls * _GOLDEN_INT % 2**64))
        counters = self._row_in_block[:, None] * np.uint64(width) + np.arange(width, dtype=np.uint64)
        return _mix(seeds[:, None] + (counters + np.uint64(1)) * _GOLDEN).reshape(shape)


_GOLDEN_INT = 0x9E3779B97F4A7C15
_GOLDEN = np.uint64(_GOLDEN_INT)


def _mix(x):
    """SplitMix64's output function on a uint64 array (wrapping arithmetic)."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def select_tokens(candidates, budget, width, rng):
    """Per row, `budget` distinct random candidate positions (fewer if there
    are fewer candidates), ascending, padded to `width`."""
    keys = np.where(candidates, rng.random(candidates.shape, dtype=np.float32), 2.0)
    if width < keys.shape[1]:
        # Only the `width` smallest keys can be chosen: partition, then order those.
        smallest = np.argpartition(keys, width - 1, axis=1)[:, :width]
        order = np.take_along_axis(smallest, np.argsort(np.take_along_axis(keys, smallest, 1), axis=1), 1)
    else:
        order = np.argsort(keys, axis=1)
    taken = np.minimum(budget, candidates.sum(axis=1))[:, None]
    sentinel = candidates.shape[1]
    positions = np.where(np.arange(order.shape[1]) < taken, order, sentinel)
    positions.sort(axis=1)
    if positions.shape[1] < width:
        positions = np.pad(positions, ((0, 0), (0, width - positions.shape[1])), constant_values=sentinel)
    valid = positions < sentinel
    return np.where(valid, positions, 0), valid


def word_spans(input_ids, candidates, is_continuation):
    """Per row, (starts, ends) of whole words: a '##' piece continues the word
    before it unless a [CLS]/[SEP] (a non-candidate) comes between."""
    previous = np.zeros_like(candidates)
    previous[:, 1:] = candidates[:, :-1]
    continues = candidates & is_continuation[input_ids] & previous
    starts = candidates & ~continues
    following = np.zeros_like(candidates)
    following[:, :-1] = continues[:, 1:]
    ends = candidates & ~following
    return [(np.flatnonzero(s), np.flatnonzero(e) + 1) for s, e in zip(starts, ends)]


def select_ngrams(starts, ends, max_ngram_size, budget, rng):
    """Token positions of randomly chosen, non-overlapping n-grams of whole
    words covering at most `budget` tokens; n is drawn with weight 1/n.
    With max_ngram_size 1 this is the original whole-word masking."""
    by_size = {n: _ngrams(starts, ends, n) for n in range(1, max_ngram_size + 1)}
    for grams in by_size.values():
        rng.shuffle(grams)
    cumulative = list(itertools.accumulate(1.0 / n for n in range(1, max_ngram_size + 1)))
    covered = set()
    while len(covered) < budget and any(by_size.values()):
        n = 1 + bisect.bisect_right(cumulative, rng.random() * cumulative[-1])
        n = min(n, max_ngram_size)
        if len(covered) + n > budget:
            by_size[n].clear()
            continue
        if not by_size[n]:
            continue
        begin, end = by_size[n].pop()
        span = range(begin, end)
        if len(covered) + len(span) > budget or not covered.isdisjoint(span):
            continue
        covered.update(span)
    return sorted(covered)


def _ngrams(starts, ends, n):
    """Spans of n consecutive words that touch (no [SEP] between them)."""
    grams = []
    for i in range(len(starts) - n + 1):
        if all(ends[j] == starts[j + 1] for j in range(i, i + n - 1)):
            grams.append((int(starts[i]), int(ends[i + n - 1])))
    return grams


def next_token_targets(input_ids, lengths):
    """Left-to-right LM targets: position i predicts token i + 1, for every
    position but the last real one; inputs are left unmasked."""
    batch, seq = input_ids.shape
    positions = np.broadcast_to(np.arange(seq), (batch, seq))
    valid = positions < (lengths[:, None] - 1)
    following = np.zeros_like(input_ids)
    following[:, :-1] = input_ids[:, 1:]
    return LmTargets(
        input_ids,
        np.where(valid, positions, 0),
        np.where(valid, following, 0),
        valid.astype(np.float32),
    )
