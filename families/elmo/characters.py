"""ELMo's character ids and word splitting in Python (`graph_characters.py`
is the same in the graph, id for id).

A token is `max_characters` ids: begin-of-word, its UTF-8 bytes (cut to
`max_characters - 2` bytes, even inside a character, as the original), end of
word, then padding; every id is the original's plus one, so that 0 is free for
padding tokens. Sentences are framed by the begin- and end-of-sentence tokens,
whose one "character" is BOS or EOS; the words `<S>` and `</S>` are those
tokens, as in the original (raw text never holds them: `<` and `>` are split
off; a task's own words can).

Words: the original takes pre-tokenized text (its training corpus, the 1B Word
Benchmark, is Moses-tokenized; its examples call `str.split()`). For raw text
we split on whitespace and make every punctuation character a word of its own
(BERT's basic classes, without its lower-casing, accent stripping or control
dropping): "Hello, world!" -> ["Hello", ",", "world", "!"]. Bytes that are not
UTF-8 are dropped, as Python's errors="ignore".
"""

import numpy as np

from data.text import unicode_tables

MAX_CHARACTERS = 50
# The original's special characters (UnicodeCharsVocabulary), already + 1.
BOS_CHAR, EOS_CHAR, BOW_CHAR, EOW_CHAR, PAD_CHAR = 257, 258, 259, 260, 261
_BOUNDARY_CHARS = {b"<S>": BOS_CHAR, b"</S>": EOS_CHAR}  # see `boundary_words`


def _special_token(char, max_characters=MAX_CHARACTERS):
    return [BOW_CHAR, char, EOW_CHAR] + [PAD_CHAR] * (max_characters - 3)


def bos_char_ids(max_characters=MAX_CHARACTERS):
    """The begin-of-sentence token's ids."""
    return _special_token(BOS_CHAR, max_characters)


def eos_char_ids(max_characters=MAX_CHARACTERS):
    """The end-of-sentence token's ids."""
    return _special_token(EOS_CHAR, max_characters)


def boundary_words(max_characters=MAX_CHARACTERS):
    """{word (UTF-8): ids} of the words that are the sentence boundaries'
    tokens: `<S>` and `</S>` read as BOS and EOS, not spelled out, as the
    original's `UnicodeCharsVocabulary.word_to_char_ids` gives them."""
    return {word: _special_token(char, max_characters) for word, char in _BOUNDARY_CHARS.items()}


def as_text(text):
    """`text` (str or UTF-8 bytes) as str, malformed bytes and lone surrogates dropped."""
    if isinstance(text, str):
        text = text.encode("utf-8", "ignore")
    return text.decode("utf-8", "ignore")


def split_words(text):
    """Whitespace-separated words with each punctuation character split off."""
    classes = unicode_tables.char_classes()
    words, current = [], []
    for char in as_text(text):
        flags = classes[ord(char)]
        if flags & unicode_tables.SPACE or flags & unicode_tables.PUNCT:
            if current:
                words.append("".join(current))
                current = []
            if not flags & unicode_tables.SPACE:
                words.append(char)
        else:
            current.append(char)
    if current:
        words.append("".join(current))
    return words


def word_char_ids(word, max_characters=MAX_CHARACTERS):
    """The `max_characters` ids of one word (str or bytes); `<S>` and `</S>`
    are the BOS and EOS tokens (`boundary_words`)."""
    data = word.encode("utf-8", "ignore") if isinstance(word, str) else bytes(word)
    if data in _BOUNDARY_CHARS:
        return _special_token(_BOUNDARY_CHARS[data], max_characters)
    data = data[:max_characters - 2]
    ids = [BOW_CHAR] + [b + 1 for b in data] + [EOW_CHAR]
    return ids + [PAD_CHAR] * (max_characters - len(ids))


def batch_char_ids(sentences, seq_len=None, sentence_boundaries=False, max_characters=MAX_CHARACTERS):
    """(int32 char ids [batch, seq, max_characters], int32 mask [batch, seq])
    of token lists, padded with all-zero tokens. With `sentence_boundaries` each
    sentence is framed by BOS and EOS tokens, as the original `Batcher` gives
    them to its biLM; without, as `ELMoEncoder` takes them (it frames them
    itself). `seq_len` (default: the longest) cuts longer sentences."""
    rows = [[word_char_ids(w, max_characters) for w in words] for words in sentences]
    if sentence_boundaries:
        rows = [[bos_char_ids(max_characters)] + r + [eos_char_ids(max_characters)] for r in rows]
    seq_len = max((len(r) for r in rows), default=0) if seq_len is None else seq_len
    ids = np.zeros((len(rows), seq_len, max_characters), np.int32)
    mask = np.zeros((len(rows), seq_len), np.int32)
    for i, row in enumerate(rows):
        row = row[:seq_len]
        if row:
            ids[i, :len(row)] = row
        mask[i, :len(row)] = 1
    return ids, mask
