"""The biLM's word vocabulary, in the original's file format: one token per
line, `<S>`, `</S>` and `<UNK>` among them, the words most frequent first (the
sampled softmax's log-uniform sampler takes a lower id for a more frequent
word). Read with errors that name the file and line; built from a corpus."""

import collections
import dataclasses
import functools
import hashlib

from families.elmo.characters import split_words
from utils.files import atomic_write_text

BOS, EOS, UNK = "<S>", "</S>", "<UNK>"
SPECIALS = (BOS, EOS, UNK)
_SKIPPED = "!!!MAXTERMID"  # a line the original's reader skips (lm_1b vocabularies end with it)


class VocabularyError(ValueError):
    """A vocabulary file the biLM cannot use; the message names the file and line."""


@dataclasses.dataclass(frozen=True)
class LMVocabulary:
    """The words of a vocabulary file, by id (its line, `!!!MAXTERMID` skipped).

    Example:
    >>> vocab = LMVocabulary.from_file("vocab.txt")
    >>> vocab.ids(["the", "zyzzyva"]), vocab.unk
    ([3, 2], 2)
    """

    words: tuple
    path: str
    sha1: str  # of the file's bytes: records written with it say so in their metadata

    @classmethod
    def from_file(cls, path):
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise VocabularyError(f"{path}: cannot read the vocabulary ({e.strerror})") from None
        words, seen = [], {}
        for line_no, raw in enumerate(data.splitlines(), start=1):
            try:
                word = raw.decode("utf-8").strip()
            except UnicodeDecodeError as e:
                raise VocabularyError(f"{path}:{line_no}: invalid UTF-8 ({e.reason})") from None
            if word == _SKIPPED:
                continue
            if not word:
                raise VocabularyError(f"{path}:{line_no}: empty line (one token per line)")
            if len(word.split()) > 1:
                raise VocabularyError(f"{path}:{line_no}: {word!r} holds whitespace (one token per line)")
            if word in seen:
                raise VocabularyError(f"{path}:{line_no}: {word!r} already on line {seen[word]}")
            seen[word] = line_no
            words.append(word)
        missing = [s for s in SPECIALS if s not in seen]
        if missing:
            raise VocabularyError(f"{path}: no {', '.join(missing)} line: the biLM's vocabulary holds "
                                  f"{', '.join(SPECIALS)} (build_elmo_vocab.py writes them first)")
        return cls(tuple(words), path, hashlib.sha1(data).hexdigest())

    @property
    def size(self):
        return len(self.words)

    @functools.cached_property
    def index(self):
        """{word: id}."""
        return {w: i for i, w in enumerate(self.words)}

    @property
    def bos(self):
        return self.words.index(BOS)

    @property
    def eos(self):
        return self.words.index(EOS)

    @property
    def unk(self):
        return self.words.index(UNK)


def count_words(documents):
    """Counter of the words (`characters.split_words`) of every line of
    `documents` (lists of lines, as `data.pretraining.corpus_reader` reads them)."""
    counts = collections.Counter()
    for document in documents:
        for line in document:
            counts.update(split_words(line))
    return counts


def vocabulary_words(counts, min_count=1, max_size=None):
    """`SPECIALS`, then the words seen at least `min_count` times, most frequent
    first (ties in code point order), `max_size` entries in all at most."""
    words = sorted((w for w, n in counts.items() if n >= min_count and w not in SPECIALS),
                   key=lambda w: (-counts[w], w))
    if max_size is not None:
        words = words[:max(max_size - len(SPECIALS), 0)]
    return list(SPECIALS) + words


def write_vocabulary(words, path):
    """One word a line, atomically."""
    atomic_write_text(path, "".join(w + "\n" for w in words))
