"""ELMo's text side: words, each a row of character ids, packed as
`families.elmo.text_packing` packs them, in Python and in the graph.

Raw text is split into words by `characters.split_words` (whitespace, each
punctuation character a word of its own; the same rules in the graph). Words
a task already has, CoNLL's, are each one token, as the original reads
tokenized text (`encode_word`). Nothing is lower-cased: the original's
characters are cased, and `do_lower_case` is accepted and ignored.

The vocabulary (`vocab.txt`, the original's one word a line with `<S>`,
`</S>`, `<UNK>`) is what the language model's softmax predicts; the
character biLM reads any word, so tasks and exports run without one
(`needs_vocabulary`), and carry it along when given.
"""

import numpy as np
import tensorflow as tf

from data.text.graph_segments import SpecialIds
from data.text.segments import truncate_pair
from data.text.text_side import TextSide
from families.elmo.characters import (BOS_CHAR, BOW_CHAR, EOS_CHAR, EOW_CHAR, MAX_CHARACTERS,
                                      split_words, word_char_ids)
from families.elmo.graph_characters import GraphCharacters
from families.elmo.text_packing import num_specials, pack_segments, pack_tokens
from families.elmo.vocabulary import Vocabulary

PAD_ID = 0  # padding tokens are all zeros


class GraphWordTokenizer(tf.Module):
    """Raw strings -> words -> character ids, in the graph: `tokenize` gives
    int32 [batch, (words), characters] (equal to `ELMoText.encode`),
    `tokenize_with_offsets` each word as one piece, [batch, (words), (1),
    characters], with its [begin, end) byte offsets [batch, (words), (1)]."""

    resources = ()  # its character table is a constant
    piece_offsets = True  # each word's own bytes

    def __init__(self, max_characters=MAX_CHARACTERS):
        super().__init__()
        self.characters = GraphCharacters(max_characters)

    def _ids(self, words):
        return words.with_flat_values(self.characters.word_char_ids(words.flat_values))

    def tokenize(self, texts):
        return self._ids(self.characters.split_words(texts))

    def tokenize_words(self, texts):
        """(ids [n, (words), characters], the words [n, (words)]) of strings [n]."""
        words = self.characters.split_words(texts)
        return self._ids(words), words

    def tokenize_with_offsets(self, texts):
        words, begins, ends = self.characters.split_words_with_offsets(texts)

        def one_piece(ragged):
            return ragged.with_flat_values(tf.RaggedTensor.from_uniform_row_length(ragged.flat_values, 1))
        return one_piece(self._ids(words)), one_piece(begins), one_piece(ends)


class WordSplitter:
    """`tokenize(text)`: the words of raw text (`characters.split_words`), as
    the shared SQuAD windows read a text side's `tokenizer`."""

    tokenize = staticmethod(split_words)


class ELMoText(TextSide):
    """Example:
    >>> text = ELMoText.from_file(None, do_lower_case=False)
    >>> text.pack(text.encode("Hello, world!"), None, 6)["input_char_ids"].shape
    (6, 50)
    """

    family = "elmo"
    model_file_name = "vocab.txt"
    padding_side = "right"
    do_lower_case_default = False
    ids_input = "input_char_ids"

    def __init__(self, model_file=None):
        super().__init__(model_file, False)
        self.vocabulary = Vocabulary.from_file(model_file) if model_file else None
        self.tokenizer = WordSplitter()
        self._graph = None

    @classmethod
    def from_file(cls, model_file, do_lower_case):
        """`model_file` may be None (a character biLM needs no vocabulary);
        `do_lower_case` is ignored: ELMo's characters are cased."""
        return cls(model_file)

    @classmethod
    def needs_vocabulary(cls, config):
        """Only the token-embedding variant looks words up; a character biLM reads any."""
        return config.token_embeddings

    def input_shapes(self, seq_length):
        return {"input_char_ids": (seq_length, MAX_CHARACTERS), "input_mask": (seq_length,)}

    @property
    def special_ids(self):
        """No special ids: tokens are rows of characters; `vocab_size` is the
        vocabulary's size (0 without one)."""
        return SpecialIds(None, None, PAD_ID, None, len(self.vocabulary) if self.vocabulary else 0)

    @property
    def unk_id(self):
        """The empty word's token (begin and end of word only)."""
        return word_char_ids("")

    def encode(self, text):
        return [word_char_ids(word) for word in split_words(text)]

    def encode_word(self, word):
        """One token, whatever the word holds: the original reads tokenized text."""
        return [word_char_ids(word)]

    def to_tokens(self, ids):
        """Each token's word (its bytes, cut to 48 as the ids hold them, decoded
        with replacement); `<S>` and `</S>`, and "" for padding."""
        return [_token_text(list(token)) for token in ids]

    def num_specials(self, ids_b):
        return num_specials(ids_b)

    def pack(self, ids_a, ids_b, max_seq_length):
        return pack_tokens(list(ids_a), None if ids_b is None else list(ids_b), max_seq_length)

    def segment_a_start(self, length_a, seq_length):
        return 0

    def piece_indexes(self, num_a, num_b, seq_length):
        """A from position 0; B after the </S> <S> between them (each as `pack` cuts them)."""
        indexes = np.full(seq_length, None, dtype=object)
        if num_b is None:
            kept_a = min(num_a, seq_length)
            indexes[:kept_a] = range(kept_a)
            return indexes
        kept_a, kept_b = (len(s) for s in truncate_pair(range(num_a), range(num_b), seq_length - 2))
        indexes[:kept_a] = range(kept_a)
        indexes[kept_a + 2:kept_a + 2 + kept_b] = range(num_a, num_a + kept_b)
        return indexes

    def graph_tokenizer(self):
        if self._graph is None:
            self._graph = GraphWordTokenizer()
        return self._graph

    def pack_graph(self, segments, seq_length):
        return pack_segments(segments, seq_length)

    def segment_specs(self):
        return [tf.RaggedTensorSpec([None, None, MAX_CHARACTERS], tf.int32, ragged_rank=1)]


def _token_text(token):
    if not any(token):
        return ""
    if token[1] in (BOS_CHAR, EOS_CHAR) and token[2] == EOW_CHAR:
        return "<S>" if token[1] == BOS_CHAR else "</S>"
    end = token.index(EOW_CHAR) if EOW_CHAR in token else len(token)
    start = 1 if token[0] == BOW_CHAR else 0
    return bytes(c - 1 for c in token[start:end]).decode("utf-8", "replace")
