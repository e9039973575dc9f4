"""GPT's tokenizer inside a TensorFlow graph: `graph_words` (an approximation
of ftfy, text_standardize, spaCy and lower-casing) then `graph_bpe` (exact
BPE). What it gives differs from the Python pipeline on a small share of
real text; docs/families/gpt-text.md has the figure and the kinds of
difference."""

import tensorflow as tf

from data.text import unicode_tables as ut
from families.gpt import graph_words
from families.gpt.graph_bpe import GraphBpe
from families.gpt.graph_html import HtmlEntities

_TEXTS = tf.TensorSpec([None], tf.string)


class GraphGPTTokenizer(tf.Module):
    """Raw strings -> ragged GPT ids inside a TensorFlow graph.

    >>> tok = GraphGPTTokenizer(BytePairEncoding.from_files("encoder_bpe_40000.json", "vocab_40000.bpe"))
    >>> tok.tokenize(tf.constant(["Don't stop!"]))  # RaggedTensor of ids
    """

    piece_offsets = False  # `tokenize_with_offsets` spans each piece's whole word

    def __init__(self, bpe, name=None):
        super().__init__(name=name)
        self._entities = HtmlEntities()
        self._spacy = graph_words.SpacyApproximation()
        self._bpe = GraphBpe(bpe)
        self._classes = tf.constant(ut.char_classes().astype("int32"))

    @property
    def resources(self):
        """What a SavedModel that calls `tokenize` must hold: the lookup tables."""
        return self._entities.resources + self._spacy.resources + self._bpe.resources

    @tf.function(input_signature=[_TEXTS], autograph=False)
    def tokenize_words(self, texts):
        """(words [batch, (words)] as `tokenizer_words.words` gives them, with
        '\\n' for a newline, and their [begin, end) byte offsets, int64)."""
        chunks, rows, begins, ends = graph_words.chunks(texts, self._entities)
        parts = graph_words.split_spaces(graph_words.standardize(chunks))
        words = self._spacy.words(parts.flat_values)
        chunk_of_word = tf.gather(parts.value_rowids(), words.value_rowids())
        word_begins, word_ends = _word_offsets(texts, words.flat_values, chunk_of_word, rows, begins, ends)
        word_rows = tf.gather(rows, chunk_of_word)
        nrows = tf.size(texts, tf.int64)

        def by_row(values):
            return tf.RaggedTensor.from_value_rowids(values, word_rows, nrows=nrows)

        lowered = graph_words.lower(words.flat_values, self._classes)
        return by_row(lowered), by_row(word_begins), by_row(word_ends)

    @tf.function(input_signature=[_TEXTS], autograph=False)
    def tokenize_with_offsets(self, texts):
        """Int32 ids [batch, (words), (pieces)] and the [begin, end) byte
        offsets (int64) of each piece, ragged like the ids: every piece spans
        its word (`_word_offsets`)."""
        words, begins, ends = self.tokenize_words(texts)
        ids = self._bpe.ids(words.flat_values)  # [words, (pieces)]

        def per_piece(values):
            return words.with_flat_values(ids.with_flat_values(tf.gather(values, ids.value_rowids())))

        return words.with_flat_values(ids), per_piece(begins.flat_values), per_piece(ends.flat_values)

    @tf.function(input_signature=[_TEXTS], autograph=False)
    def tokenize(self, texts):
        """Ragged int32 ids [batch, (pieces)] of raw `texts`."""
        return self.tokenize_with_offsets(texts)[0].merge_dims(1, 2)


def _word_offsets(texts, words, chunk_of_word, rows, begins, ends):
    """[begin, end) byte offsets of each word (flat, before lower-casing): its
    own bytes where the words of its chunk spell the chunk as written (no
    character changed by ftfy, NFC or text_standardize), else the chunk's."""
    num_chunks = tf.size(rows, tf.int64)
    by_chunk = tf.RaggedTensor.from_value_rowids(words, chunk_of_word, nrows=num_chunks)
    written = tf.strings.substr(tf.gather(texts, rows), begins, ends - begins)
    exact = tf.gather(tf.equal(tf.strings.reduce_join(by_chunk, axis=1), written), chunk_of_word)
    lengths = tf.cast(tf.strings.length(words), tf.int64)
    before = tf.cumsum(lengths, exclusive=True)
    first = tf.gather(before, tf.gather(by_chunk.row_starts(), chunk_of_word))
    chunk_begins, chunk_ends = tf.gather(begins, chunk_of_word), tf.gather(ends, chunk_of_word)
    word_begins = tf.where(exact, chunk_begins + before - first, chunk_begins)
    return word_begins, tf.where(exact, word_begins + lengths, chunk_ends)
