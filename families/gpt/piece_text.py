"""GPT's BPE pieces back to text, in Python and in the graph: pieces joined,
each word end (`</w>`) a space, the ends stripped (the rule of Hugging Face's
`OpenAIGPTTokenizer.convert_tokens_to_string`; the original has no decoder).
The words come back lower-cased and split as GPT's tokenizer split them:
["sm", "ith</w>", "'s</w>"] -> "smith 's"."""

import tensorflow as tf

from families.gpt.bpe import WORD_END


def piece_text(pieces):
    """The text of a list of piece strings."""
    return "".join(pieces).replace(WORD_END, " ").strip()


def graph_piece_text(pieces):
    """`piece_text` of string pieces [n, (pieces)] -> string [n]."""
    joined = tf.strings.reduce_join(pieces, axis=-1)
    return tf.strings.strip(tf.strings.regex_replace(joined, WORD_END, " "))
