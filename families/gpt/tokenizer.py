"""The original GPT tokenizer in Python: `ftfy.fix_text`, `text_standardize`,
spaCy's English tokenizer, lower-casing, BPE (`families.gpt.bpe`). Its ids
equal those the original `TextEncoder` recorded (tests/fixtures/gpt/)."""

import os

from families.gpt.bpe import BytePairEncoding
from families.gpt.tokenizer_words import words

MERGES_FILE_NAME = "vocab_{}.bpe"


def merges_file_beside(encoder_file):
    """`vocab_<n>.bpe` beside `encoder_bpe_<n>.json` (any other name: `vocab.bpe`)."""
    directory, name = os.path.split(encoder_file)
    stem = name[:-len(".json")] if name.endswith(".json") else name
    size = stem[len("encoder_bpe_"):] if stem.startswith("encoder_bpe_") else ""
    return os.path.join(directory, MERGES_FILE_NAME.format(size) if size else "vocab.bpe")


class GPTTokenizer:
    """Raw text -> GPT ids, as the original pipeline.

    >>> tok = GPTTokenizer.from_file("encoder_bpe_40000.json")
    >>> tok.encode("Don't stop!")  # do n't stop !
    """

    def __init__(self, bpe, encoder_file):
        self.bpe = bpe
        self.encoder_file = encoder_file

    @classmethod
    def from_file(cls, encoder_file, merges_file=None):
        merges_file = merges_file or merges_file_beside(encoder_file)
        return cls(BytePairEncoding.from_files(encoder_file, merges_file), encoder_file)

    def tokenize_words(self, text):
        """[(word, pieces)] of `text`: spaCy's lower-cased words and their BPE pieces."""
        return [(word, self.bpe.pieces(word)) for word in words(text)]

    def tokenize(self, text):
        return [piece for _, pieces in self.tokenize_words(text) for piece in pieces]

    def encode(self, text):
        return self.bpe.ids(self.tokenize(text))
