"""GPT's words inside a TensorFlow graph: an approximation of `ftfy.fix_text`
+ `text_standardize` + spaCy's English tokenizer + lower-casing
(`families.gpt.tokenizer_words.words`) with tensorflow and tensorflow_text
ops only, from the tables of `families.gpt.graph_tables`.

1. ftfy: terminal escapes and per character (a table), then whitespace
   splits the text into chunks; a newline between chunks is a word of its own
   ('\\n'); HTML entities (`graph_html`) and NFC per chunk.
2. text_standardize on each chunk (its replacements and spaced punctuation).
3. spaCy on each space-separated piece, as its `_split_affixes`: special
   cases, then one prefix and one suffix at a time until nothing changes,
   then special case, URL or infix splits of what is left.
4. `str.lower` per word (a table, with the final-sigma rule).

`chunks` gives each chunk's [begin, end) byte offsets in the input
(`graph_tokenizer` narrows them to words).
"""

import re

import tensorflow as tf
import tensorflow_text as text

from data.text import unicode_tables as ut
from data.text.char_maps import map_chars
from data.text.graph_tokenizer import with_final_sigmas
from families.gpt import graph_html
from families.gpt import graph_tables as tables
from families.gpt.text_standardize import REPLACEMENTS, SPACED_PUNCTUATION

NEWLINE = 10
MAX_AFFIX_STEPS = 64  # spaCy strips one prefix and one suffix per step


def _previous(x, first):
    return tf.concat([tf.constant([first], x.dtype), x[:-1]], 0)


def chunks(texts, entities):
    """(chunk strings, their text's row, begin, end byte offsets): runs of
    non-whitespace after ftfy's fixes (terminal escapes, character fixes,
    HTML entities by `entities`, a `graph_html.HtmlEntities`), and '\\n' for
    each newline run between two chunks of a text."""
    cps, begins = tf.strings.unicode_decode_with_offsets(
        graph_html.blank_terminal_escapes(texts), "UTF-8", errors="replace")
    char_rows, begins = cps.value_rowids(), begins.flat_values
    next_in_row = tf.concat([tf.equal(char_rows[1:], char_rows[:-1]), [False]], 0)
    lengths = tf.cast(tf.strings.length(texts, unit="BYTE"), tf.int64)
    ends = tf.where(next_in_row, tf.concat([begins[1:], [0]], 0), tf.gather(lengths, char_rows))
    mapped, source = map_chars(cps.flat_values, tables.fix_text_map())
    rows = tf.gather(char_rows, source)
    begin, end = tf.gather(begins, source), tf.gather(ends, source)
    space = tf.reduce_any(tf.equal(mapped[:, None], ut.whitespace_codepoints()[None]), 1)
    newline = tf.equal(mapped, NEWLINE)
    kept = ~space | newline
    new = kept & (newline | _previous(space, True) | tf.not_equal(rows, _previous(rows, -1)))
    chunk_ids = tf.boolean_mask(tf.cumsum(tf.cast(new, tf.int64)) - 1, kept)
    n = tf.reduce_sum(tf.cast(new, tf.int64))
    chars = tf.RaggedTensor.from_value_rowids(tf.boolean_mask(mapped, kept), chunk_ids, nrows=n)
    chunk_rows = tf.math.unsorted_segment_max(tf.boolean_mask(rows, kept), chunk_ids, n)
    chunk_begins = tf.math.unsorted_segment_min(tf.boolean_mask(begin, kept), chunk_ids, n)
    chunk_ends = tf.math.unsorted_segment_max(tf.boolean_mask(end, kept), chunk_ids, n)
    is_newline = tf.equal(tf.gather(chars.flat_values, chars.row_starts()), NEWLINE)
    # A newline counts after a word and before a later word of the same text, once per run.
    last_word = tf.math.unsorted_segment_max(
        tf.where(is_newline, tf.cast(-1, tf.int64), tf.range(n)), chunk_rows, tf.size(texts, tf.int64))
    keep = ~is_newline | (~_previous(is_newline, True)
                          & tf.equal(_previous(chunk_rows, -1), chunk_rows)
                          & (tf.range(n) < tf.gather(last_word, chunk_rows)))
    strings = entities.unescape(tf.strings.unicode_encode(chars, "UTF-8"),
                                chunk_begins < tf.gather(graph_html.entity_line_limits(texts), chunk_rows))
    strings = text.normalize_utf8(strings, "NFC")
    return tuple(tf.boolean_mask(t, keep) for t in (strings, chunk_rows, chunk_begins, chunk_ends))


def standardize(strings):
    """text_standardize on chunks without whitespace: its replacements and
    the spaces around runs of its punctuation."""
    for old, new in REPLACEMENTS:
        strings = tf.strings.regex_replace(strings, old, new)
    return tf.strings.regex_replace(strings, f"({SPACED_PUNCTUATION})", r" \1 ")


def split_spaces(strings):
    """Ragged [n, (parts)] of `strings` split at spaces, empty parts dropped."""
    parts = tf.strings.split(strings, sep=" ")
    return tf.ragged.boolean_mask(parts, tf.not_equal(parts, ""))


class SpacyApproximation(tf.Module):
    """spaCy's English tokenizer on space-free strings, in the graph."""

    def __init__(self, name=None):
        super().__init__(name=name)
        specials = tables.special_cases()
        self._specials = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
            tf.constant(list(specials)), tf.constant(list(specials.values()))), default_value="")
        self._prefix = f"(?s)^(?:{tables.prefix_pattern()})"
        plain = "|".join(f"(?:{body})" for context, body in tables.suffix_patterns() if not context)
        self._suffixes = [("", plain)] + [(c, b) for c, b in tables.suffix_patterns() if c]
        self._infixes = tables.infix_patterns()
        self._url = tables.url_pattern()
        self._rejoined = [(" ".join(map(re.escape, tokens)), special.replace("\\", "\\\\"))
                          for tokens, special in tables.affixed_special_cases()]
        self._any_rejoined = "(?s)(?:.* )?(?:" + "|".join(p for p, _ in self._rejoined) + ")(?: .*)?"

    @property
    def resources(self):
        return (self._specials,)

    def special(self, strings):
        return tf.not_equal(self._specials.lookup(strings), "")

    def _suffix_length(self, strings):
        """Bytes of spaCy's suffix of each string: the longest that any suffix
        pattern matches at the end (its leftmost match)."""
        lengths = tf.strings.length(strings)
        longest = tf.zeros_like(lengths)
        for context, body in self._suffixes:
            pattern = f"(?s)^(.*?{context})(?:{body})$"
            minus = tf.strings.regex_replace(strings, pattern, r"\1", replace_global=False)
            matched = tf.strings.regex_full_match(strings, pattern)
            longest = tf.where(matched, tf.maximum(longest, lengths - tf.strings.length(minus)), longest)
        return longest

    def _split_affixes(self, strings):
        """(prefixes joined by spaces, what is left, suffixes joined by spaces)."""
        def step(s, pre, suf, active):
            active &= ~self.special(s)
            length = tf.strings.length(s)
            minus_pre = tf.strings.regex_replace(s, self._prefix, r"\1", replace_global=False)
            pre_len = length - tf.strings.length(minus_pre)
            suf_len = self._suffix_length(minus_pre)
            minus_suf = tf.strings.substr(s, tf.zeros_like(length), length - suf_len)
            stop_pre = (pre_len > 0) & tf.not_equal(minus_pre, "") & self.special(minus_pre)
            stop_suf = ~stop_pre & (suf_len > 0) & tf.not_equal(minus_suf, "") & self.special(minus_suf)
            both = ~stop_pre & ~stop_suf & (pre_len > 0) & (suf_len > 0) & (pre_len + suf_len <= length)
            add_pre = stop_pre | (~stop_suf & (pre_len > 0))
            add_suf = stop_suf | (~stop_pre & (suf_len > 0) & (both | tf.equal(pre_len, 0)))
            start = tf.where(add_pre, pre_len, 0)
            new = tf.strings.substr(s, start, length - start - tf.where(add_suf, suf_len, 0))
            prefix = tf.strings.substr(s, tf.zeros_like(length), pre_len)
            suffix = tf.strings.substr(s, length - suf_len, suf_len)
            pre = tf.where(active & add_pre, pre + prefix + " ", pre)
            suf = tf.where(active & add_suf, " " + suffix + suf, suf)
            changed = tf.not_equal(new, s)
            s = tf.where(active, new, s)
            return s, pre, suf, active & changed & ~stop_pre & ~stop_suf & tf.not_equal(s, "")

        empty = tf.fill(tf.shape(strings), "")
        s, pre, suf, _ = tf.while_loop(
            lambda s, pre, suf, active: tf.reduce_any(active), step,
            (strings, empty, empty, tf.not_equal(strings, "")), maximum_iterations=MAX_AFFIX_STEPS)
        return pre, s, suf

    def _infix_split(self, strings):
        """Spaces around each infix match (each pattern twice: a match takes
        the character after it, which may start the next)."""
        for before, body, after in self._infixes:
            for _ in range(2):
                strings = tf.strings.regex_replace(strings, f"({before})({body})({after})", r"\1 \2 \3")
        return strings

    def _rejoin_special_cases(self, joined):
        """Space-separated tokens with each run that spells a special case
        re-tokenized as that special case, as spaCy's special matcher (left to right)."""
        at = tf.where(tf.strings.regex_full_match(joined, self._any_rejoined))
        found = tf.gather_nd(joined, at)
        for tokens, special in self._rejoined:
            for _ in range(2):  # a match takes the space after it, which may start the next
                found = tf.strings.regex_replace(found, f"(^| ){tokens}( |$)", f"\\1{special}\\2")
        return tf.tensor_scatter_nd_update(joined, at, found)

    def words(self, strings):
        """Ragged [n, (words)] of space-free strings."""
        pre, middle, suf = self._split_affixes(strings)
        special = self._specials.lookup(middle)
        whole = tf.not_equal(special, "") | tf.strings.regex_full_match(middle, self._url)
        middle = tf.where(tf.not_equal(special, ""), special,
                          tf.where(whole, middle, self._infix_split(middle)))
        joined = tf.strings.regex_replace(pre + " " + middle + " " + suf, " +", " ")
        joined = tf.strings.regex_replace(joined, "^ | $", "")  # not strip: '\n' is a word
        return split_spaces(self._rejoin_special_cases(joined))


def lower(words, classes):
    """str.lower of each word (flat strings); `classes`: `ut.char_classes()` as an int32 tensor."""
    cps = tf.strings.unicode_decode(words, "UTF-8", errors="replace")
    flags = tf.gather(classes, cps.flat_values)
    sigmas = with_final_sigmas(cps.flat_values, flags, cps.value_rowids())
    mapped, source = map_chars(sigmas, tables.lower_map())
    rows = tf.gather(cps.value_rowids(), source)
    return tf.strings.unicode_encode(
        tf.RaggedTensor.from_value_rowids(mapped, rows, nrows=cps.nrows()), "UTF-8")
