"""GPT's `text_standardize` against the original's (openai/finetune-transformer-lm
`text_utils.py`), whose spacing pattern is a plain Python string literal: the
oracle is that literal's source text read by Python itself, then run by `re`,
so a backslash is spaced out exactly where the original spaces it (nowhere).
The words and ids of the Python pipeline and of the in-graph tokenizer follow."""

import ast
import os
import re
import warnings

import ftfy
import pytest
import tensorflow as tf

from families.gpt.text_side import GPTText
from families.gpt.text_standardize import text_standardize
from families.gpt.tokenizer import GPTTokenizer
from families.gpt.tokenizer_words import english_tokenizer
from tests.conftest import FIXTURES

SMALL_ENCODER = os.path.join(FIXTURES, "gpt", "encoder_bpe_2000.json")
# The characters between the original's ''' quotes, as they stand in its source.
ORIGINAL_SOURCE = r'''(-+|~+|!+|"+|;+|\?+|\++|,+|\)+|\(+|\\+|\/+|\*+|\[+|\]+|}+|{+|\|+|_+)'''
BACKSLASH_TEXTS = [
    "a\\b",
    "C:\\Users\\me\\file.txt and \\\\server\\share",
    "Escapes \\n \\t \\\" \\' stay; LaTeX \\frac{1}{2} and \\alpha!",
    "\\ \\\\ \\\\\\ a\\ \\b x\\\\y (\\) [\\] {\\} \\+ +\\ \\- -\\",
    "Smiley :\\ and \\o/ and ¯\\_(ツ)_/¯ end\\",
    "line one\\\nline two \\\n\\ three",
]


def original_pattern():
    """The original's pattern string: its source literal read as Python reads a
    plain string (its unknown escapes such as `\\?` kept, with a warning)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.literal_eval("'''" + ORIGINAL_SOURCE + "'''")


def original_text_standardize(text):
    """The original's function, its patterns given as the strings Python makes of them."""
    for old, new in (("—", "-"), ("–", "-"), ("―", "-"), ("…", "..."), ("´", "'")):
        text = text.replace(old, new)
    text = re.sub(original_pattern(), r" \1 ", text)
    text = re.sub("\\s*\n\\s*", " \n ", text)
    text = re.sub("[^\\S\n]+", " ", text)
    return text.strip()


def test_the_original_pattern_does_not_space_out_backslashes():
    assert "\\\\+" not in original_pattern() and "|\\+|" in original_pattern()
    assert original_text_standardize("a\\b") == "a\\b"


@pytest.mark.parametrize("text", BACKSLASH_TEXTS + ["Don't—stop… (now) \"x\" a+b a/b a_b a|b ~~ !!"])
def test_text_standardize_is_the_originals(text):
    assert text_standardize(text) == original_text_standardize(text)


def test_python_and_graph_words_follow_the_original():
    python = GPTTokenizer.from_file(SMALL_ENCODER)
    graph = GPTText.from_file(SMALL_ENCODER, do_lower_case=True).graph_tokenizer()
    originals = [[t.text.lower() for t in english_tokenizer()(original_text_standardize(ftfy.fix_text(text)))]
                 for text in BACKSLASH_TEXTS]
    assert [[w for w, _ in python.tokenize_words(text)] for text in BACKSLASH_TEXTS] == originals
    assert ["a\\b"] == originals[0]
    graph_ids = graph.tokenize(tf.constant(BACKSLASH_TEXTS)).to_list()
    assert graph_ids == [python.encode(text) for text in BACKSLASH_TEXTS]
