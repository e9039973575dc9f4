"""The original XLNet's choice of prediction targets (`_sample_mask`): spans of
n pieces, n drawn with probability proportional to 1/n (n <= 5), each placed at
a random offset inside a context of n * mask_alpha // mask_beta tokens and
moved right to the next word-start piece; positions drawn uniformly fill up to
the goal.

The original counts an n-gram's length in pieces, not words (its word count
looks at the span's first piece each time), and so does this one: a span is n
pieces that start a word. Random draws are made in the original's order, so a
`numpy.random.RandomState` seeded like the original's global one gives its masks.
"""

import numpy as np

# The original's `_is_start_piece` punctuation.
_START_PUNCTUATION = frozenset('!"#$%&"()*+,-./:;?@[\\]^_`{|}~')
MAX_GRAM = 5


def is_start_piece(piece):
    """A piece that begins a word: '▁...', a special '<...>' symbol, or punctuation."""
    return piece.startswith("\u2581") or piece.startswith("<") or piece in _START_PUNCTUATION


def start_piece_table(sp):
    """Bool per id of a SentencePieceProcessor: does the piece begin a word."""
    return np.array([is_start_piece(sp.id_to_piece(i)) for i in range(sp.get_piece_size())])


def sample_mask(segment_starts, goal, mask_alpha, mask_beta, rng, reverse=False):
    """Bool [len] of `goal` targets; `segment_starts` says which positions begin
    a word. `reverse` samples from the end (backward rows of bi_data)."""
    length = len(segment_starts)
    starts = segment_starts[::-1] if reverse else segment_starts
    mask = np.zeros(length, dtype=bool)
    ngrams = np.arange(1, MAX_GRAM + 1, dtype=np.int64)
    probabilities = 1.0 / ngrams
    probabilities /= probabilities.sum(keepdims=True)
    chosen, cursor = 0, 0
    while cursor < length and chosen < goal:
        n = min(int(rng.choice(ngrams, p=probabilities)), goal - chosen)
        context = n * mask_alpha // mask_beta
        left = int(rng.choice(context))
        begin = cursor + left
        while begin < length and not starts[begin]:
            begin += 1
        end = begin + n
        if end >= length:
            break
        mask[begin:end] = True
        chosen += n
        cursor = end + context - left
    while chosen < goal:
        i = rng.randint(length)
        if not mask[i]:
            mask[i] = True
            chosen += 1
    return mask[::-1] if reverse else mask
