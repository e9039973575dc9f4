"""Character classes of the original BERT basic tokenizer, shared by the
Python and the in-graph tokenizers so both split text the same way."""

import re
import unicodedata

UNUSED_TOKEN_RE = re.compile(r"^\[unused\d+\]$")

_CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


def is_cjk(cp):
    """CJK Unified Ideographs blocks: each such character is its own word."""
    return any(lo <= cp <= hi for lo, hi in _CJK_RANGES)


def is_whitespace(char):
    """Space, tab, newline, carriage return or any Unicode space separator."""
    return char in " \t\n\r" or unicodedata.category(char) == "Zs"


def is_control(char):
    """Control and format characters, which the original drops (but not tab/newline)."""
    if char in "\t\n\r":
        return False
    return unicodedata.category(char) in ("Cc", "Cf")


def is_dropped(char):
    """Characters removed before anything else: NUL, U+FFFD and controls."""
    cp = ord(char)
    return cp == 0 or cp == 0xFFFD or is_control(char)


def is_punctuation(char):
    """All non-alphanumeric ASCII plus every Unicode P* category."""
    cp = ord(char)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(char).startswith("P")
