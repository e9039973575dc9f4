"""ELMo's word vocabulary, the original's `vocab-2016-09-10.txt` format: one
word a line, `<S>`, `</S>` and `<UNK>` among them. Only the language model's
softmax and the token-embedding variant use it: a character biLM reads any
word, so its tasks need no vocabulary."""

import dataclasses

BOS, EOS, UNK = "<S>", "</S>", "<UNK>"


class VocabularyError(ValueError):
    """A vocabulary file the biLM cannot use; the message names the file and line."""


@dataclasses.dataclass(frozen=True)
class Vocabulary:
    """Words in file order; a word's id is its line index (0-based), as the
    original's `Vocabulary`."""

    path: str
    words: tuple

    def __post_init__(self):
        object.__setattr__(self, "_ids", {word: i for i, word in enumerate(self.words)})

    @classmethod
    def from_file(cls, path):
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        words, seen = [], {}
        for number, line in enumerate(lines, 1):
            try:
                word = line.decode("utf-8").strip()
            except UnicodeDecodeError as e:
                raise VocabularyError(f"{path}:{number}: not UTF-8 ({e})") from None
            if not word or len(word.split()) != 1:
                raise VocabularyError(f"{path}:{number}: expected one word, got {word!r}")
            if word in seen:
                raise VocabularyError(f"{path}:{number}: {word!r} repeats line {seen[word]}")
            seen[word] = number
            words.append(word)
        missing = [w for w in (BOS, EOS, UNK) if w not in seen]
        if missing:
            raise VocabularyError(f"{path}: the vocabulary has no {', '.join(missing)} (the original "
                                  f"needs {BOS}, {EOS} and {UNK})")
        return cls(path, tuple(words))

    def __len__(self):
        return len(self.words)

    def word_id(self, word):
        """The id of `word`, `<UNK>`'s for a word not in the vocabulary."""
        return self._ids.get(word, self._ids[UNK])

    @property
    def bos_id(self):
        return self._ids[BOS]

    @property
    def eos_id(self):
        return self._ids[EOS]

    @property
    def unk_id(self):
        return self._ids[UNK]
