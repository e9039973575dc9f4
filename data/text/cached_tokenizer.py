"""Exact, faster tokenization of large corpora: the result for each
whitespace-separated chunk of a line is computed once and then looked up.

This is exact because the original tokenizer treats every whitespace-
separated chunk independently: cleaning acts character by character and
every later step splits further but never joins across whitespace. The
separators it uses are Python's `str.split()` separators minus a few control
characters that it deletes instead ("a\\x0bb" is the single word "ab"); lines
holding one of those take the uncached path.
"""

import re

import numpy as np

from data.text.tokenization import FullTokenizer

_SPLIT_BUT_DELETED = re.compile("[\x0b\x0c\x1c-\x1f\x85]")


class ChunkCache:
    """`cache(line)` == `function(line)` for a `function` of text that maps a
    line to the concatenation of its results on the line's chunks (the
    tokenizers here). The cache is cleared when it reaches `max_entries`.

    Example:
    >>> words = ChunkCache(BasicTokenizer(do_lower_case=True).tokenize)
    >>> words("Hello, World!")
    ['hello', ',', 'world', '!']
    """

    def __init__(self, function, max_entries=200_000):
        self.function = function
        self.max_entries = max_entries
        self._cache = {}

    def __call__(self, line):
        if _SPLIT_BUT_DELETED.search(line):
            return list(self.function(line))
        cache = self._cache
        result = []
        for chunk in line.split():
            chunk_result = cache.get(chunk)
            if chunk_result is None:
                chunk_result = self._compute(chunk)
            result += chunk_result
        return result

    def _compute(self, chunk):
        if len(self._cache) >= self.max_entries:
            self._cache.clear()
        result = tuple(self.function(chunk))
        self._cache[chunk] = result
        return result


class CachedTokenizer:
    """`encode(line)` gives the ids `FullTokenizer.encode(line)` gives.

    Example:
    >>> tok = CachedTokenizer(FullTokenizer("vocab.txt"))
    >>> tok.encode("Unaffable!")
    [14477, 20961, 3468, 999]
    """

    def __init__(self, tokenizer: FullTokenizer, max_entries=200_000):
        self.vocab = tokenizer.vocab
        self.encode = ChunkCache(tokenizer.encode, max_entries)

    def continuation_table(self):
        """Boolean array over ids: True for '##' pieces, which continue a word."""
        return np.array([t.startswith("##") for t in self.vocab.id_to_token], dtype=bool)
