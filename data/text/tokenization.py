"""Python WordPiece tokenizer, token-for-token the original `FullTokenizer`.

Basic tokenization (clean, split CJK, whitespace split, lower-case and strip
accents only when uncased, split punctuation) followed by greedy
longest-match-first WordPiece with `##` continuations. The in-graph twin in
`data/text/graph_tokenizer.py` must give the same ids; `tests/data/text/test_tokenizer_parity.py`
checks both against `bert.tokenization` from bert-tensorflow.
"""

import unicodedata

from data.text import text_classes
from data.text.vocab import Vocab

MAX_CHARS_PER_WORD = 200


def to_text(text):
    """str stays; bytes are decoded as UTF-8 dropping invalid bytes (the original's rule)."""
    if isinstance(text, str):
        return text
    if isinstance(text, bytes):
        return text.decode("utf-8", "ignore")
    raise TypeError(f"expected str or bytes, got {type(text).__name__}")


class BasicTokenizer:
    """Splits text into words and punctuation as the original BasicTokenizer."""

    def __init__(self, do_lower_case=True, preserve_unused_tokens=False, vocab=None):
        self.do_lower_case = do_lower_case
        self.preserve_unused_tokens = preserve_unused_tokens
        self.vocab = vocab

    def tokenize(self, text):
        text = self._clean_and_space_cjk(to_text(text))
        words = []
        for token in text.split():
            if self.is_preserved(token):
                words.append(token)
                continue
            if self.do_lower_case:
                token = strip_accents(token.lower())
            words.extend(split_on_punctuation(token))
        return " ".join(words).split()

    def is_preserved(self, token):
        return (
            self.preserve_unused_tokens
            and self.vocab is not None
            and token in self.vocab
            and bool(text_classes.UNUSED_TOKEN_RE.search(token))
        )

    @staticmethod
    def _clean_and_space_cjk(text):
        out = []
        for char in text:
            if text_classes.is_dropped(char):
                continue
            if text_classes.is_whitespace(char):
                out.append(" ")
            elif text_classes.is_cjk(ord(char)):
                out.extend((" ", char, " "))
            else:
                out.append(char)
        return "".join(out)


def strip_accents(text):
    """NFD, then drop nonspacing marks (category Mn)."""
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")


def split_on_punctuation(text):
    """Every punctuation character becomes a word of its own."""
    words, start_new = [], True
    for char in text:
        if text_classes.is_punctuation(char):
            words.append(char)
            start_new = True
        else:
            if start_new:
                words.append("")
            start_new = False
            words[-1] += char
    return words


class WordpieceTokenizer:
    """Greedy longest-match-first WordPiece; a word that cannot be covered, or
    longer than `max_chars_per_word` characters, becomes one `[UNK]`."""

    def __init__(self, vocab, unk_token="[UNK]", max_chars_per_word=MAX_CHARS_PER_WORD):
        self.vocab = vocab
        self.unk_token = unk_token
        self.max_chars_per_word = max_chars_per_word

    def tokenize_word(self, word):
        if len(word) > self.max_chars_per_word:
            return [self.unk_token]
        pieces, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    break
                end -= 1
            else:
                return [self.unk_token]
            pieces.append(piece)
            start = end
        return pieces

    def tokenize(self, text):
        return [p for word in to_text(text).split() for p in self.tokenize_word(word)]


class FullTokenizer:
    """Text -> word pieces -> ids, the original end-to-end tokenizer.

    Example:
    >>> tok = FullTokenizer("vocab.txt", do_lower_case=True)
    >>> tok.tokenize("Unaffable!")
    ['una', '##ffa', '##ble', '!']
    """

    def __init__(self, vocab_file=None, do_lower_case=True, preserve_unused_tokens=False, vocab=None):
        self.vocab = vocab if vocab is not None else Vocab.from_file(vocab_file)
        self.do_lower_case = do_lower_case
        self.basic_tokenizer = BasicTokenizer(do_lower_case, preserve_unused_tokens, self.vocab)
        self.wordpiece_tokenizer = WordpieceTokenizer(self.vocab)

    def tokenize(self, text):
        pieces = []
        for word in self.basic_tokenizer.tokenize(text):
            if self.basic_tokenizer.is_preserved(word):
                pieces.append(word)
            else:
                pieces.extend(self.wordpiece_tokenizer.tokenize_word(word))
        return pieces

    def tokenize_words(self, text):
        """Basic words with their word pieces: [(word, [piece, ...]), ...]."""
        return [(w, self.wordpiece_tokenizer.tokenize_word(w)) for w in self.basic_tokenizer.tokenize(text)]

    def encode(self, text):
        return self.vocab.ids(self.tokenize(text))

    def convert_tokens_to_ids(self, tokens):
        return self.vocab.ids(tokens)

    def convert_ids_to_tokens(self, ids):
        return self.vocab.to_tokens(ids)
