"""GPT's byte-pair encoding inside a TensorFlow graph, exact for every word:
all words merge together, one merge per word and step, in a `tf.while_loop`
over the flat symbols (ragged by word), as `families.gpt.bpe` merges one word:
each step finds each word's adjacent pair of lowest rank and merges all its
occurrences, left to right without overlap.
"""

import tensorflow as tf

from families.gpt.bpe import UNK_ID, WORD_END

NO_RANK = 2**31 - 1


class GraphBpe(tf.Module):
    """Words (tf.string [n]) -> ragged piece ids [n, (pieces)].

    >>> bpe = GraphBpe(BytePairEncoding.from_files("encoder_bpe_40000.json", "vocab_40000.bpe"))
    >>> bpe.ids(tf.constant(["hello", "world"]))
    """

    def __init__(self, bpe, name=None):
        super().__init__(name=name)
        pairs = [f"{a} {b}" for a, b in bpe.merges]
        self._ranks = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
            tf.constant(pairs or [""], tf.string), tf.range(max(len(pairs), 1), dtype=tf.int32)),
            default_value=NO_RANK)
        self._encoder = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
            tf.constant(list(bpe.encoder)), tf.constant(list(bpe.encoder.values()), tf.int32)),
            default_value=UNK_ID)

    @property
    def resources(self):
        return (self._ranks, self._encoder)

    def pieces(self, words):
        """Ragged BPE pieces [n, (pieces)] of distinct or repeated words."""
        unique, index = tf.unique(words)
        chars = tf.strings.unicode_split(unique, "UTF-8", errors="replace")
        symbols = tf.where(_is_last(chars), chars.flat_values + WORD_END, chars.flat_values)
        rows = chars.value_rowids()

        def step(symbols, rows):
            same_word = tf.equal(rows[:-1], rows[1:])
            keys = symbols[:-1] + " " + symbols[1:]
            ranks = tf.where(same_word, self._ranks.lookup(keys), NO_RANK)
            best = tf.math.unsorted_segment_min(ranks, rows[:-1], tf.size(unique, tf.int64))
            candidate = (ranks < NO_RANK) & tf.equal(ranks, tf.gather(best, rows[:-1]))
            # In a run of overlapping candidates (a a a), take every other one from its left.
            run = tf.cumsum(tf.cast(~candidate, tf.int64))
            run_start = tf.gather(tf.math.unsorted_segment_min(
                tf.range(tf.size(candidate, tf.int64)), run, tf.reduce_max(run) + 1), run)
            taken = candidate & tf.equal((tf.range(tf.size(candidate, tf.int64)) - run_start) % 2,
                                         tf.cast(run > 0, tf.int64))
            taken_at = tf.concat([taken, [False]], 0)
            dropped = tf.concat([[False], taken], 0)
            merged = tf.where(taken_at, symbols + tf.concat([symbols[1:], [""]], 0), symbols)
            return tf.boolean_mask(merged, ~dropped), tf.boolean_mask(rows, ~dropped)

        def more(symbols, rows):
            same_word = tf.equal(rows[:-1], rows[1:])
            return tf.reduce_any(same_word & (self._ranks.lookup(symbols[:-1] + " " + symbols[1:]) < NO_RANK))

        symbols, rows = tf.while_loop(more, step, (symbols, rows),
                                      shape_invariants=(tf.TensorShape([None]), tf.TensorShape([None])))
        merged = tf.RaggedTensor.from_value_rowids(symbols, rows, nrows=tf.size(unique, tf.int64))
        return tf.gather(merged, index)

    def ids(self, words):
        pieces = self.pieces(words)
        return pieces.with_flat_values(self._encoder.lookup(pieces.flat_values))


def _is_last(chars):
    """For each flat character of ragged `chars`, whether it ends its word."""
    ends = tf.boolean_mask(chars.row_limits(), chars.row_lengths() > 0) - 1
    return tf.scatter_nd(ends[:, None], tf.ones_like(ends, tf.bool),
                         tf.shape(chars.flat_values, out_type=tf.int64))
