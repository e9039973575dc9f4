"""In-graph XLNet tokenizer giving exactly the ids of `XLNetTokenizer`.

The original's `preprocess_text` is rebuilt from tables computed with
Python's own `unicodedata` and `str` methods, so no ICU version can disagree:
NFKD followed by dropping every character with a combining class is, per
character, NFKD(c) minus those characters (canonical reordering only moves
the characters that are dropped); `str.lower` is a per-character map plus the
Final_Sigma rule (`graph_tokenizer.with_final_sigmas`). tensorflow_text's
`SentencepieceTokenizer` then runs the same model, and the original's
`encode_pieces` rule for digit-comma pieces is applied to the ragged pieces.

`tokenize_with_offsets` gives the pieces word by word, as the word-level tasks
(tagging, question answering) align them: words are the runs of non-whitespace
that `preprocess_text` keeps apart, and SentencePiece pieces never cross
whitespace, so each word's pieces are `XLNetTokenizer.encode_ids(word)`.
"""

import functools
import unicodedata

import numpy as np
import sentencepiece as spm
import tensorflow as tf
import tensorflow_text as text

from data.text import unicode_tables as ut
from data.text.char_maps import char_map, map_ragged_chars
from data.text.graph_tokenizer import with_final_sigmas
from data.text.sentencepiece_vocab import check_special_symbols
from families.xlnet.tokenizer import SPIECE_UNDERLINE

_TEXTS = tf.TensorSpec([None], tf.string)


def _char_class(predicate):
    """An RE2 character class of the codepoints for which `predicate(chr(cp))` holds."""
    cps = [cp for cp in ut.assigned_codepoints() if predicate(chr(cp))]
    ranges, start = [], cps[0]
    for prev, cp in zip(cps, cps[1:] + [None]):
        if cp != prev + 1:
            ranges.append(f"\\x{{{start:x}}}" + (f"-\\x{{{prev:x}}}" if prev > start else ""))
            start = cp
    return "[" + "".join(ranges) + "]"


@functools.lru_cache(maxsize=None)
def _whitespace_run():
    return _char_class(str.isspace) + "+"


def _split_words(texts):
    """Runs of non-whitespace (str.isspace) of each UTF-8 string: words and their
    [begin, end) byte offsets (int64), ragged [batch, (words)]. (tensorflow_text's
    regex_split stops at a NUL byte; this does not.)"""
    cps, starts = tf.strings.unicode_decode_with_offsets(texts, "UTF-8")
    chars, rows, begins = cps.flat_values, cps.value_rowids(), starts.flat_values
    space = tf.reduce_any(tf.equal(chars[:, None], tf.constant(ut.whitespace_codepoints())[None]), 1)
    previous_row, next_row = (tf.concat([[-1], rows[:-1]], 0), tf.concat([rows[1:], [-1]], 0))
    first = ~space & (tf.concat([[True], space[:-1]], 0) | tf.not_equal(previous_row, rows))
    last = ~space & (tf.concat([space[1:], [True]], 0) | tf.not_equal(next_row, rows))
    ends = tf.where(tf.equal(next_row, rows), tf.concat([begins[1:], [0]], 0),
                    tf.gather(tf.cast(tf.strings.length(texts, unit="BYTE"), tf.int64), rows))
    word_rows, word_begins = tf.boolean_mask(rows, first), tf.boolean_mask(begins, first)
    word_ends = tf.boolean_mask(ends, last)
    words = tf.strings.substr(tf.gather(texts, word_rows), word_begins, word_ends - word_begins,
                              unit="BYTE")

    def by_row(values):
        return tf.RaggedTensor.from_value_rowids(values, word_rows, nrows=tf.size(texts, tf.int64))

    return by_row(words), by_row(word_begins), by_row(word_ends)


@functools.lru_cache(maxsize=None)
def _digit_comma_piece():
    """Full match of a piece whose last two characters are a str.isdigit character and ','."""
    return "(?s).*" + _char_class(str.isdigit) + ","


@functools.lru_cache(maxsize=None)
def _accent_map():
    return char_map(lambda c: "".join(
        d for d in unicodedata.normalize("NFKD", c) if not unicodedata.combining(d)))


@functools.lru_cache(maxsize=None)
def _lower_map():
    return char_map(str.lower)


class GraphXLNetTokenizer(tf.Module):
    """Raw strings -> ragged XLNet ids inside a TensorFlow graph.

    >>> tok = GraphXLNetTokenizer("spiece.model", lower=False)
    >>> tok.tokenize(tf.constant(["In 2019, we"]))  # RaggedTensor of ids
    """

    piece_offsets = False  # `tokenize_with_offsets` spans each piece's whole word

    def __init__(self, model_file, lower=False, remove_space=True, keep_accents=False, name=None):
        super().__init__(name=name)
        with tf.io.gfile.GFile(model_file, "rb") as f:
            model = f.read()
        check_special_symbols(spm.SentencePieceProcessor(model_proto=model), model_file)
        self.lower = lower
        self.remove_space = remove_space
        self.keep_accents = keep_accents
        self._sp = text.SentencepieceTokenizer(model=model, out_type=tf.string)
        if lower:
            self._classes = tf.constant(ut.char_classes().astype(np.int32))

    @property
    def resources(self):
        """What a SavedModel that calls `tokenize` must hold: the SentencePiece model."""
        return (self._sp,)

    @tf.function(input_signature=[_TEXTS], autograph=False)
    def preprocess(self, texts):
        """The original's preprocess_text on a batch of UTF-8 strings."""
        if self.remove_space:
            texts = tf.strings.regex_replace(texts, _whitespace_run(), " ")
            texts = tf.strings.regex_replace(texts, "^ | $", "")
        texts = tf.strings.regex_replace(texts, "``", '"')
        texts = tf.strings.regex_replace(texts, "''", '"')
        if self.keep_accents and not self.lower:
            return texts
        cps = tf.strings.unicode_decode(texts, "UTF-8")
        if not self.keep_accents:
            cps = map_ragged_chars(cps, _accent_map())
        if self.lower:
            flags = tf.gather(self._classes, cps.flat_values)
            sigmas = with_final_sigmas(cps.flat_values, flags, cps.value_rowids())
            cps = map_ragged_chars(cps.with_flat_values(sigmas), _lower_map())
        return tf.strings.unicode_encode(cps, "UTF-8")

    @tf.function(input_signature=[_TEXTS], autograph=False)
    def encode_pieces(self, texts):
        """Ragged pieces of preprocessed `texts`, digit-comma pieces re-split."""
        pieces = self._sp.tokenize(texts)
        flat = pieces.flat_values
        split = tf.strings.regex_full_match(flat, _digit_comma_piece())
        at = tf.where(split)[:, 0]
        to_split = tf.gather(flat, at)
        number = self._sp.tokenize(tf.strings.regex_replace(
            tf.strings.regex_replace(to_split, ",$", ""), SPIECE_UNDERLINE, ""))  # never empty: a digit is left
        # Where the piece did not start a word, take back the marker the re-encoding added.
        first_at = number.row_starts()[:, None]
        first = tf.gather_nd(number.flat_values, first_at)
        unmark = (~tf.strings.regex_full_match(to_split, f"(?s){SPIECE_UNDERLINE}.*")
                  & tf.strings.regex_full_match(first, f"(?s){SPIECE_UNDERLINE}.*"))
        drop_first = unmark & tf.equal(first, SPIECE_UNDERLINE)
        first = tf.where(unmark, tf.strings.regex_replace(first, f"^{SPIECE_UNDERLINE}", ""), first)
        number = number.with_flat_values(tf.tensor_scatter_nd_update(number.flat_values, first_at, first))
        keep = ~(tf.equal(tf.ragged.range(number.row_lengths()), 0) & drop_first[:, None])
        number = tf.concat([tf.ragged.boolean_mask(number, keep), tf.fill([tf.size(at), 1], ",")], axis=1)
        n = tf.size(flat, tf.int64)
        rows = tf.where(split, n + tf.cumsum(tf.cast(split, tf.int64), exclusive=True), tf.range(n))
        whole = tf.RaggedTensor.from_tensor(flat[:, None])
        replaced = tf.gather(tf.concat([whole, number], axis=0), rows)
        return pieces.with_flat_values(replaced).merge_dims(1, 2)

    @tf.function(input_signature=[_TEXTS], autograph=False)
    def tokenize(self, texts):
        """Ragged int32 ids of raw `texts`: preprocess, encode_pieces, piece -> id."""
        return self.piece_ids(self.tokenize_pieces(texts))

    @tf.function(input_signature=[_TEXTS], autograph=False)
    def tokenize_pieces(self, texts):
        """Ragged pieces of raw `texts` as `XLNetTokenizer.tokenize` gives them
        (an unknown character as it is written, where its id is `<unk>`'s)."""
        return self.encode_pieces(self.preprocess(texts))

    def piece_ids(self, pieces):
        """Ids of string pieces (ragged or not)."""
        return self._sp.string_to_id(pieces)

    @tf.function(input_signature=[_TEXTS], autograph=False)
    def tokenize_with_offsets(self, texts):
        """The contract of WordPiece's `GraphTokenizer.tokenize_with_offsets`: int32
        ids [batch, (words), (pieces)] and the [begin, end) byte offsets (int64)
        of each piece in its input string, ragged like the ids. Words are the
        runs of non-whitespace (str.split's whitespace), each tokenized alone;
        a word whose characters all normalise away has no pieces. Offsets are
        word-level: every piece of a word spans the whole word (the pieces of
        a normalised word need not map back to its characters one by one)."""
        words, begins, ends = _split_words(texts)
        ids = self.tokenize(words.flat_values)  # [words, (pieces)]

        def per_piece(word_values):
            return words.with_flat_values(ids.with_flat_values(
                tf.gather(word_values, ids.value_rowids())))

        return (words.with_flat_values(ids), per_piece(begins.flat_values),
                per_piece(ends.flat_values))
