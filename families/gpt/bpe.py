"""GPT's byte-pair encoding: the released `encoder_bpe_40000.json` (piece ->
id) and `vocab_40000.bpe` (a `#version` line, then one merge "a b" a line, in
the order they were learned), applied as the original applies them.

A word is its characters with `</w>` glued to the last one; the adjacent pair
of lowest merge rank is merged everywhere (left to right, without overlap)
until no pair has a rank. Pieces outside the encoder get id 0 (`<unk>`), as
the original's `encoder.get(piece, 0)`.
"""

import functools
import json

WORD_END = "</w>"
UNK_ID = 0  # the original's default for a piece outside the encoder: '<unk>' in the release
SPECIAL_TOKENS = ("_start_", "_delimiter_", "_classify_")  # ids len(encoder) + 0, 1, 2


class BpeFileError(ValueError):
    """A vocabulary file that cannot be read; the message names the file (and
    line), `path` the file."""

    def __init__(self, message, path):
        super().__init__(message)
        self.path = path


def read_encoder(path):
    """{piece: id} of an `encoder_bpe_<n>.json`."""
    try:
        with open(path, encoding="utf-8") as f:
            encoder = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BpeFileError(f"{path}: cannot read the BPE encoder: {e}", path) from None
    if not isinstance(encoder, dict) or not all(
            isinstance(k, str) and type(v) is int for k, v in encoder.items()):
        raise BpeFileError(f"{path}: expected a JSON object of piece -> integer id", path)
    if sorted(encoder.values()) != list(range(len(encoder))):
        raise BpeFileError(f"{path}: ids must be 0..{len(encoder) - 1}, each once", path)
    return encoder


def read_merges(path):
    """[(a, b), ...] of a `vocab_<n>.bpe`, in rank order."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except (OSError, UnicodeDecodeError) as e:
        raise BpeFileError(f"{path}: cannot read the BPE merges: {e}", path) from None
    if not lines[0].startswith("#version"):
        raise BpeFileError(f"{path}:1: expected a '#version' line, found {lines[0][:40]!r}", path)
    merges = []
    for line_no, line in enumerate(lines[1:], start=2):
        pair = tuple(line.split())
        if len(pair) != 2:
            if line_no == len(lines) and not line:
                break  # the newline that ends the file
            raise BpeFileError(f"{path}:{line_no}: expected two symbols, found {line[:40]!r}", path)
        merges.append(pair)
    return merges


class BytePairEncoding:
    """Words -> BPE pieces and ids.

    >>> bpe = BytePairEncoding.from_files("encoder_bpe_40000.json", "vocab_40000.bpe")
    >>> bpe.pieces("hello")
    ['hello</w>']
    """

    def __init__(self, encoder, merges):
        self.encoder = encoder
        self.merges = merges
        self.ranks = {pair: rank for rank, pair in enumerate(merges)}
        self.decoder = {i: piece for piece, i in encoder.items()}
        for offset, token in enumerate(SPECIAL_TOKENS):
            self.decoder[len(encoder) + offset] = token
        self.pieces = functools.lru_cache(maxsize=100_000)(self._pieces)

    @classmethod
    def from_files(cls, encoder_file, merges_file):
        return cls(read_encoder(encoder_file), read_merges(merges_file))

    @property
    def n_vocab(self):
        """Pieces in the encoder; the specials follow it."""
        return len(self.encoder)

    def special_id(self, token):
        return self.n_vocab + SPECIAL_TOKENS.index(token)

    def merge(self, symbols):
        """`symbols` with every ranked pair merged, lowest rank first."""
        while len(symbols) > 1:
            rank, pair = min((self.ranks.get(p, float("inf")), p) for p in zip(symbols, symbols[1:]))
            if rank == float("inf"):
                break
            merged, i = [], 0
            while i < len(symbols):
                if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
                    merged.append(pair[0] + pair[1])
                    i += 2
                else:
                    merged.append(symbols[i])
                    i += 1
            symbols = merged
        return symbols

    def _pieces(self, word):
        """Pieces of one word. The original joins them with spaces and splits
        again, so the word '\\n ' (a newline token) is one piece '\\n</w>'."""
        if not word:
            return []
        joined = " ".join(self.merge(list(word[:-1]) + [word[-1] + WORD_END]))
        return ("\n" + WORD_END if joined == "\n  " + WORD_END else joined).split(" ")

    def ids(self, pieces):
        return [self.encoder.get(piece, UNK_ID) for piece in pieces]

    def to_tokens(self, ids):
        return [self.decoder[int(i)] for i in ids]
