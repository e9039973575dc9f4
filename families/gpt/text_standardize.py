"""GPT's text clean-up before word splitting, as the original pipeline:
`ftfy.fix_text` with its default settings, then the original's
`text_standardize` (written for spaCy on BooksCorpus): long dashes to '-',
'…' to '...', '´' to "'", spaces around runs of the punctuation spaCy split
badly (not backslashes: see SPACED_PUNCTUATION), every newline (with the
whitespace around it) to ' \\n ', every other whitespace run to one space,
and no whitespace at either end."""

import re

import ftfy

# Runs of these characters become words of their own: the original's pattern
# as Python reads it. The original wrote it as a plain (not raw) string, where
# its `\\+` is `\+`, a literal '+' (which `\++` already covers): a backslash is
# not spaced out.
SPACED_PUNCTUATION = r"""-+|~+|!+|"+|;+|\?+|\++|,+|\)+|\(+|\+|/+|\*+|\[+|\]+|}+|{+|\|+|_+"""
REPLACEMENTS = (("—", "-"), ("–", "-"), ("―", "-"), ("…", "..."), ("´", "'"))


def text_standardize(text):
    """The original's rules on text ftfy has already fixed."""
    for old, new in REPLACEMENTS:
        text = text.replace(old, new)
    text = re.sub(f"({SPACED_PUNCTUATION})", r" \1 ", text)
    text = re.sub(r"\s*\n\s*", " \n ", text)
    text = re.sub(r"[^\S\n]+", " ", text)
    return text.strip()


def clean_text(text):
    """What the original hands spaCy: `text_standardize(ftfy.fix_text(text))`."""
    return text_standardize(ftfy.fix_text(text))
