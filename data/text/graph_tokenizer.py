"""In-graph WordPiece tokenizer giving exactly the ids of the original `FullTokenizer`.

tensorflow_text's BertTokenizer folds text differently from the original
(NFKC, other control and space classes, 100-byte words), so this one rebuilds
the original basic tokenizer from tables computed with Python's own
`unicodedata` (`data/text/unicode_tables.py`), vectorised over all characters of a
batch at once, and hands the resulting words to `FastWordpieceTokenizer`.
`tests/data/text/test_tokenizer_parity.py` proves the ids equal on hostile text.
"""

import collections

import tensorflow as tf
import tensorflow_text as text

from data.text import text_classes
from data.text import unicode_tables as ut
from data.text.graph_offsets import row_ids, utf8_length
from data.text.tokenization import MAX_CHARS_PER_WORD
from data.text.vocab import Vocab

_TEXTS = tf.TensorSpec([None], tf.string)
UNK_TOKEN = "[UNK]"

# Flat per-character columns; `rows` is the batch row, `begins`/`ends` the
# character's byte span in the input string.
_Chars = collections.namedtuple("_Chars", "cps begins ends rows")


class GraphTokenizer(tf.Module):
    """Strings -> word-piece ids as `bert.tokenization.FullTokenizer`, in TensorFlow ops.

    Works eagerly, in `tf.function`, in `tf.data` and in a SavedModel; all
    tables are constants (no lookup-table resources). `vocab` is a `Vocab` or a
    vocab file; `preserve_unused_tokens` is the original's flag of that name: a
    whitespace word that is a vocab `[unusedN]` token stays whole.

    Example:
    >>> tok = GraphTokenizer("vocab.txt", do_lower_case=True)
    >>> tok.tokenize(tf.constant(["Unaffable!"])).to_list()
    [[[14477, 20961, 3468], [999]]]
    """

    resources = ()  # its tables are constants: a SavedModel need hold nothing for it
    piece_offsets = True  # `tokenize_with_offsets` spans each piece's own characters

    def __init__(self, vocab, do_lower_case=True, preserve_unused_tokens=False, name=None):
        super().__init__(name=name)
        vocab = vocab if isinstance(vocab, Vocab) else Vocab.from_file(vocab)
        self.do_lower_case = do_lower_case
        self.preserve_unused_tokens = preserve_unused_tokens
        self._classes = tf.constant(ut.char_classes())
        if do_lower_case:
            self._fold = ut.FoldMap(*map(tf.constant, ut.fold_map()))
            self._ccc_keys, self._ccc_values = map(tf.constant, ut.combining_classes())
        unused = [t for t in vocab.tokens if text_classes.UNUSED_TOKEN_RE.search(t)]
        self._unused_tokens = tf.constant(unused, tf.string, shape=[len(unused)])
        self._wordpiece = text.FastWordpieceTokenizer(
            vocab=vocab.tokens,
            suffix_indicator="##",
            max_bytes_per_word=4 * MAX_CHARS_PER_WORD,
            token_out_type=tf.int32,
            unknown_token=UNK_TOKEN,
            no_pretokenization=True,
        )

    @tf.function(input_signature=[_TEXTS], autograph=False)
    def tokenize(self, texts):
        """tf.string [batch] -> int32 RaggedTensor [batch, (words), (pieces)]."""
        _, words, word_rows = self._basic_tokenize(texts)
        ids = self._wordpiece.tokenize(words.strings)
        return tf.RaggedTensor.from_value_rowids(ids, word_rows, nrows=tf.size(texts, tf.int64))

    @tf.function(input_signature=[_TEXTS], autograph=False)
    def tokenize_with_offsets(self, texts):
        """Also the [begin, end) byte offsets (int64) of each piece in its input
        string, ragged like the ids. A piece from part of a folded character
        (İ -> i, ŉ -> ʼn) spans the whole source character; characters that
        fold to nothing (combining marks when uncased) are in a span only when
        between two of its characters."""
        chars, words, word_rows = self._basic_tokenize(texts)
        ids, begins, ends = self._wordpiece.tokenize_with_offsets(words.strings)
        # Pieces are character-aligned: find their first and last folded
        # characters from byte positions in the concatenated words.
        char_bytes = tf.cumsum(utf8_length(chars.cps), exclusive=True)
        piece_words = ids.value_rowids()
        word_bytes = tf.gather(tf.gather(char_bytes, words.starts), piece_words)
        first = tf.searchsorted(char_bytes, begins.flat_values + word_bytes, out_type=tf.int64)
        last = tf.searchsorted(char_bytes, ends.flat_values + word_bytes, out_type=tf.int64) - 1
        # An over-long word went in as "[UNK]": its one piece spans the whole word.
        last = tf.where(tf.gather(words.too_long, piece_words), tf.gather(words.limits, piece_words) - 1, last)

        def by_row(values):
            return tf.RaggedTensor.from_value_rowids(
                ids.with_flat_values(values), word_rows, nrows=tf.size(texts, tf.int64))

        return by_row(ids.flat_values), by_row(tf.gather(chars.begins, first)), by_row(tf.gather(chars.ends, last))

    def _basic_tokenize(self, texts):
        """The original BasicTokenizer: returns the folded characters, the words
        (`_Words`) over them, and each word's batch row."""
        chars = _decode(texts)
        flags = tf.gather(self._classes, chars.cps)
        kept = tf.equal(flags & ut.DROP, 0)
        chars, flags = _select(chars, kept), tf.boolean_mask(flags, kept)
        segments = _whitespace_segments(flags, chars.rows)
        preserved = self._preserved(chars, segments)
        is_char = tf.equal(flags & ut.SPACE, 0)
        chars = _select(chars, is_char)
        flags, segments, preserved = (tf.boolean_mask(t, is_char) for t in (flags, segments, preserved))
        if self.do_lower_case:
            chars, source = self._lower_case(chars, flags, segments, preserved)
            segments, preserved = tf.gather(segments, source), tf.gather(preserved, source)
        punct = tf.not_equal(tf.gather(self._classes, chars.cps) & ut.PUNCT, 0) & ~preserved
        words = _words(chars.cps, segments, punct)
        return chars, words, tf.gather(chars.rows, words.starts)

    def _preserved(self, chars, segments):
        """Per character: inside a whitespace word that is a vocab `[unusedN]` token."""
        if not self.preserve_unused_tokens:
            return tf.zeros_like(segments, tf.bool)
        words = tf.strings.unicode_encode(tf.RaggedTensor.from_value_rowids(chars.cps, segments - 1), "UTF-8")
        maybe = tf.strings.substr(words, 0, 7) == "[unused"
        candidates = tf.where(maybe)[:, 0]
        in_vocab = tf.reduce_any(
            tf.equal(tf.expand_dims(tf.gather(words, candidates), 1), self._unused_tokens), axis=1)
        preserved = tf.tensor_scatter_nd_update(tf.zeros_like(maybe), tf.expand_dims(candidates, 1), in_vocab)
        return tf.gather(preserved, segments - 1)

    def _lower_case(self, chars, flags, segments, preserved):
        """str.lower, NFD and Mn removal of the original; returns the folded
        characters and, for each, the index of its source character."""
        cps, fold = with_final_sigmas(chars.cps, flags, segments), self._fold
        index = tf.minimum(tf.searchsorted(fold.keys, cps), tf.size(fold.keys) - 1)
        hit = tf.equal(tf.gather(fold.keys, index), cps) & ~preserved
        n = tf.size(cps)
        starts = tf.where(hit, tf.gather(fold.row_splits, index), tf.size(fold.values) + tf.range(n))
        lengths = tf.where(hit, tf.gather(fold.row_splits, index + 1) - starts, 1)
        positions = tf.ragged.range(starts, starts + lengths)
        source = positions.value_rowids()
        folded = tf.gather(tf.concat([fold.values, cps], 0), positions.flat_values)
        # NFD (of each whitespace word) puts the combining marks of a run in
        # combining-class order; the Mn ones are gone, the few others must be
        # sorted here. A run is numbered by the starters before it, plus the
        # segment number so that runs never span words.
        starter = tf.cast(tf.equal(flags & ut.NONSTARTER, 0), tf.int32)
        value_starters = tf.gather(tf.concat([fold.value_starters, starter], 0), positions.flat_values)
        key_starters = tf.where(hit, tf.gather(fold.key_starters, index), starter)
        runs = (tf.gather(tf.cumsum(tf.cast(key_starters, tf.int64), exclusive=True) + segments, source)
                + tf.cast(value_starters, tf.int64))
        folded, source = self._canonical_order(folded, source, runs)
        chars = _Chars(folded, *(tf.gather(c, source) for c in chars[1:]))
        return chars, source

    def _canonical_order(self, cps, source, runs):
        """Stable sort of the non-starters of each run by combining class."""
        movable = tf.where(tf.not_equal(tf.gather(self._classes, cps) & ut.NONSTARTER, 0))[:, 0]
        moved_cps = tf.gather(cps, movable)
        ccc = tf.gather(self._ccc_values, tf.searchsorted(self._ccc_keys, moved_cps))
        order = tf.argsort(tf.gather(runs, movable) * 256 + tf.cast(ccc, tf.int64), stable=True)
        at = tf.expand_dims(movable, 1)
        return (tf.tensor_scatter_nd_update(cps, at, tf.gather(moved_cps, order)),
                tf.tensor_scatter_nd_update(source, at, tf.gather(tf.gather(source, movable), order)))


_Words = collections.namedtuple("_Words", "strings starts limits too_long")


def _decode(texts):
    """UTF-8 -> flat codepoints, dropping malformed bytes as Python's errors="ignore" does."""
    cps, begins = tf.strings.unicode_decode_with_offsets(texts, "UTF-8", errors="ignore")
    return _Chars(cps.flat_values, begins.flat_values,
                  begins.flat_values + utf8_length(cps.flat_values), row_ids(cps))


def _select(chars, mask):
    return _Chars(*(tf.boolean_mask(c, mask) for c in chars))


def _whitespace_segments(flags, rows):
    """Whitespace-word number of each character (spaces get their own), as
    str.split() after the CJK spacing: 1, 2, ... across the batch."""
    edge = tf.not_equal(flags & (ut.SPACE | ut.CJK), 0)
    new = edge | _previous(edge, True) | tf.not_equal(rows, _previous(rows, -1))
    return tf.cumsum(tf.cast(new, tf.int64))


def with_final_sigmas(cps, flags, segments):
    """str.lower's Final_Sigma rule within each whitespace word: Σ -> ς when
    the nearest non-case-ignorable character before it is cased and the one
    after it is not (or absent)."""
    counts = tf.equal(flags & ut.CASE_IGNORABLE, 0)
    counted = tf.where(counts)[:, 0]
    rank = tf.cumsum(tf.cast(counts, tf.int64), exclusive=True)
    sigmas = tf.where(tf.equal(cps, ut.CAPITAL_SIGMA))[:, 0]
    sigma_segments = tf.gather(segments, sigmas)

    def cased_neighbour(step):
        k = tf.gather(rank, sigmas) + step
        valid = (k >= 0) & (k < tf.size(counted, tf.int64))
        at = tf.gather(counted, tf.clip_by_value(k, 0, tf.size(counted, tf.int64) - 1))
        cased = tf.not_equal(tf.gather(flags, at) & ut.CASED, 0)
        return valid & tf.equal(tf.gather(segments, at), sigma_segments) & cased

    final = cased_neighbour(-1) & ~cased_neighbour(1)
    at = tf.expand_dims(tf.boolean_mask(sigmas, final), 1)
    return tf.tensor_scatter_nd_update(cps, at, tf.fill([tf.shape(at)[0]], ut.FINAL_SIGMA))


def _words(cps, segments, punct):
    """Splits whitespace words further at punctuation and encodes them; a word
    of more than MAX_CHARS_PER_WORD characters is sent as "[UNK]", which
    WordPiece maps to exactly one [UNK] (the vocab must hold it)."""
    new = tf.not_equal(segments, _previous(segments, -1)) | punct | _previous(punct, True)
    chars = tf.RaggedTensor.from_row_starts(cps, tf.where(new)[:, 0])
    too_long = chars.row_lengths() > MAX_CHARS_PER_WORD
    strings = tf.where(too_long, UNK_TOKEN, tf.strings.unicode_encode(chars, "UTF-8"))
    return _Words(strings, chars.row_starts(), chars.row_limits(), too_long)


def _previous(x, first):
    """x shifted right by one along its only axis, `first` entering at 0."""
    return tf.concat([tf.constant([first], x.dtype), x], 0)[:-1]
