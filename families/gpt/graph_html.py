"""What ftfy does to sequences, in the graph: HTML entities decoded (`&amp;`
-> `&`) in the lines before the first line holding a '<' (ftfy's "auto"),
terminal escapes (`\\x1b[31m`) removed. Mojibake repair is not here."""

import tensorflow as tf
import tensorflow_text as text

from families.gpt import graph_tables as tables

MAX_ESCAPE_PARAMETERS = 16  # characters between '\x1b[' and the final letter


def blank_terminal_escapes(texts):
    """ftfy's remove_terminal_escapes, each escape overwritten with as many NUL
    bytes (which its per-character fixes drop), so byte offsets still hold."""
    for k in range(MAX_ESCAPE_PARAMETERS + 1):
        texts = tf.strings.regex_replace(texts, f"\x1b\\[[0-9;]{{{k}}}[a-zA-Z]", "\x00" * (k + 3))
    return texts


def entity_line_limits(texts):
    """Byte offset in each text from which ftfy leaves entities alone: the
    start of the first line holding '<' (the text's length + 1 if none)."""
    before = tf.strings.regex_replace(texts, "(?s)^([^<]*)<.*$", r"\1")
    line_start = tf.strings.length(tf.strings.regex_replace(before, "(?s)^(.*\n)?[^\n]*$", r"\1"))
    has_lt = tf.strings.regex_full_match(texts, "(?s).*<.*")
    return tf.cast(tf.where(has_lt, line_start, tf.strings.length(texts) + 1), tf.int64)


class HtmlEntities(tf.Module):
    """ftfy's entity table (`graph_tables.html_entities`) on strings without whitespace."""

    def __init__(self, name=None):
        super().__init__(name=name)
        entities = tables.html_entities()
        self._table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
            tf.constant(list(entities)), tf.constant(list(entities.values()))), default_value="")

    @property
    def resources(self):
        return (self._table,)

    def unescape(self, strings, allowed):
        """`strings` with their entities decoded where `allowed` (bool, like strings)."""
        at = tf.where(allowed & tf.strings.regex_full_match(strings, f"(?s).*{tables.HTML_ENTITY}.*"))
        pieces = text.regex_split(tf.gather_nd(strings, at), tables.HTML_ENTITY, tables.HTML_ENTITY)
        decoded = self._table.lookup(pieces.flat_values)
        decoded = tf.where(tf.equal(decoded, ""), pieces.flat_values, decoded)
        joined = tf.strings.reduce_join(pieces.with_flat_values(decoded), axis=1)
        return tf.tensor_scatter_nd_update(strings, at, joined)
