"""ELMo's word splitting and character ids in the TensorFlow graph, for
serving raw text: the same ids as `characters.py` (see there for the rules),
from the same character table."""

import tensorflow as tf

from data.text import unicode_tables
from data.text.graph_offsets import row_ids, utf8_length
from families.elmo.characters import BOW_CHAR, EOW_CHAR, MAX_CHARACTERS, PAD_CHAR, boundary_words


class GraphCharacters(tf.Module):
    """Strings -> words -> character ids, all in the graph.

    Example:
    >>> chars = GraphCharacters()
    >>> ids, mask = chars.encode(tf.constant(["Hello, world!"]), seq_len=16)
    """

    def __init__(self, max_characters=MAX_CHARACTERS, name=None):
        super().__init__(name=name)
        self.max_characters = max_characters
        self._classes = tf.constant(unicode_tables.char_classes(), tf.uint8)

    def split_words(self, texts):
        """string [batch] -> ragged string [batch, (words)]."""
        return self.split_words_with_offsets(texts)[0]

    def split_words_with_offsets(self, texts):
        """(words string, begins, ends int64), each ragged [batch, (words)]: the
        words and the [begin, end) byte offsets of each in its text (bytes that
        are not UTF-8 are dropped from a word, not from the offsets)."""
        cps, offsets = tf.strings.unicode_decode_with_offsets(
            tf.convert_to_tensor(texts, tf.string), "UTF-8", errors="ignore")
        rows, values = row_ids(cps), cps.flat_values
        flags = tf.cast(tf.gather(self._classes, values), tf.int32)
        space = tf.not_equal(flags & unicode_tables.SPACE, 0)
        punct = tf.not_equal(flags & unicode_tables.PUNCT, 0) & ~space
        new_row = tf.not_equal(rows, _previous(rows, -1))
        starts = ~space & (new_row | _previous(space, True) | punct | _previous(punct, True))
        word_of = tf.cumsum(tf.cast(starts, tf.int64)) - 1  # the word each character is in
        keep = tf.where(~space)[:, 0]
        num_words = tf.reduce_sum(tf.cast(starts, tf.int64))
        chars = tf.RaggedTensor.from_value_rowids(tf.gather(values, keep), tf.gather(word_of, keep),
                                                  nrows=num_words)
        words = tf.strings.unicode_encode(chars, "UTF-8")
        word_rows = tf.boolean_mask(rows, starts)
        char_ends = tf.cast(offsets.flat_values, tf.int64) + utf8_length(values)
        ends = tf.math.unsorted_segment_max(tf.gather(char_ends, keep), tf.gather(word_of, keep), num_words)
        begins = tf.boolean_mask(tf.cast(offsets.flat_values, tf.int64), starts)
        return tuple(tf.RaggedTensor.from_value_rowids(t, word_rows, nrows=cps.nrows())
                     for t in (words, begins, ends))

    def word_char_ids(self, words):
        """string [n] -> int32 [n, max_characters]; `<S>` and `</S>` are the
        BOS and EOS tokens (`characters.boundary_words`)."""
        data = tf.strings.substr(words, 0, self.max_characters - 2, unit="BYTE")
        data = tf.strings.bytes_split(data)
        data = tf.RaggedTensor.from_row_splits(
            tf.reshape(tf.cast(tf.io.decode_raw(data.flat_values, tf.uint8), tf.int32), [-1]) + 1,
            data.row_splits)
        n = tf.shape(words, out_type=tf.int64)[:1]
        ids = tf.concat([tf.fill(tf.concat([n, [1]], 0), BOW_CHAR), data,
                         tf.fill(tf.concat([n, [1]], 0), EOW_CHAR)], axis=1)
        ids = ids.to_tensor(default_value=PAD_CHAR, shape=[None, self.max_characters])
        for word, boundary in boundary_words(self.max_characters).items():
            ids = tf.where(tf.equal(words, word)[:, None], tf.constant([boundary], tf.int32), ids)
        return ids

    def encode(self, texts, seq_len=None):
        """(int32 char ids [batch, seq, max_characters], int32 mask [batch, seq]) of
        raw strings, as `characters.batch_char_ids(map(split_words, texts), seq_len)`."""
        words = self.split_words(texts)
        if seq_len is not None:
            words = words[:, :seq_len]
        ids = tf.RaggedTensor.from_row_splits(self.word_char_ids(words.flat_values), words.row_splits)
        shape = [None, seq_len, self.max_characters]
        mask = tf.ones_like(words.flat_values, tf.int32)
        return (ids.to_tensor(0, shape=shape),
                words.with_flat_values(mask).to_tensor(0, shape=[None, seq_len]))


def _previous(x, first):
    """x shifted right by one along its only axis, `first` entering at 0."""
    return tf.concat([tf.constant([first], x.dtype), x], 0)[:-1]
