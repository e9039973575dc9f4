"""Unicode tables for the in-graph tokenizer, computed from the running
Python's `unicodedata` and `str.lower` — the very functions the original
tokenizer calls — so the graph follows that Python's Unicode version exactly.

Codepoints that are unassigned, private-use or surrogates (categories Cn, Co,
Cs) have no case, no decomposition and none of the classes below except the
range-based CJK one, so only assigned codepoints are probed one by one.
"""

import collections
import functools
import unicodedata

import numpy as np

from data.text import text_classes
from utils.table_cache import disk_cached

# What the tables are computed from, beside Python's `unicodedata` (`utils.table_cache`).
SOURCES = ("data/text",)
NUM_CODEPOINTS = 0x110000
CAPITAL_SIGMA = 0x3A3
FINAL_SIGMA = 0x3C2

# Bit flags of `char_classes()`.
DROP = 1  # removed before anything else (_clean_text)
SPACE = 2  # ends a word: the original's whitespace, or str.isspace (str.split)
CJK = 4  # always a word of its own
PUNCT = 8  # a word of its own after lower-casing
CASED = 16  # cased and not case-ignorable: decides Σ -> ς in str.lower
CASE_IGNORABLE = 32  # skipped when str.lower looks for Σ's neighbours
NONSTARTER = 64  # canonical combining class > 0: NFD may reorder it

FoldMap = collections.namedtuple(
    "FoldMap", "keys row_splits values value_starters key_starters")
FoldMap.__doc__ = """Per-codepoint uncased folding NFD(lower(c)) minus Mn, for every
c where it is not c itself: `values[row_splits[i]:row_splits[i+1]]` replaces
`keys[i]`. The starter counts (characters of combining class 0 in the full NFD,
Mn included) locate canonical-ordering runs: `value_starters` up to and
including each kept character, `key_starters` for the whole key."""


@functools.lru_cache(maxsize=None)
@disk_cached(SOURCES)
def assigned_codepoints():
    """Codepoints whose category is not Cn, Co or Cs (about 145k)."""
    return [cp for cp in range(NUM_CODEPOINTS)
            if unicodedata.category(chr(cp)) not in ("Cn", "Co", "Cs")]


@functools.lru_cache(maxsize=None)
@disk_cached(SOURCES)
def whitespace_codepoints():
    """int32 [n]: every assigned codepoint Python's `str.isspace` (and so
    `str.split()`) treats as whitespace."""
    return np.array([cp for cp in assigned_codepoints() if chr(cp).isspace()], np.int32)


def _final_sigma_context(char):
    """(cased, case_ignorable) as str.lower sees them when placing ς, found by
    asking str.lower itself: a character both cased and ignorable counts as
    ignorable there, so `cased` means cased and not ignorable."""
    cased = (char + "Σ").lower().endswith("ς")
    ignorable = not cased and ("A" + char + "Σ").lower().endswith("ς")
    return cased, ignorable


@functools.lru_cache(maxsize=None)
@disk_cached(SOURCES)
def char_classes():
    """uint8 [0x110000] of the bit flags above, one entry per codepoint."""
    table = np.zeros(NUM_CODEPOINTS, np.uint8)
    # By range, unassigned codepoints included, as text_classes.is_cjk.
    for lo, hi in text_classes._CJK_RANGES:
        table[lo:hi + 1] |= CJK
    for cp in assigned_codepoints():
        char = chr(cp)
        flags = 0
        if text_classes.is_dropped(char):
            flags |= DROP
        elif text_classes.is_whitespace(char) or char.isspace():
            flags |= SPACE
        if text_classes.is_punctuation(char):
            flags |= PUNCT
        cased, ignorable = _final_sigma_context(char)
        flags |= CASED * cased | CASE_IGNORABLE * ignorable
        if unicodedata.combining(char):
            flags |= NONSTARTER
        table[cp] |= flags
    return table


@functools.lru_cache(maxsize=None)
@disk_cached(SOURCES)
def fold_map():
    """The uncased folding as a `FoldMap` of the characters that reach it (not
    dropped, not spaces). Σ folds to σ; ς in context is the graph's job."""
    classes = char_classes()
    keys, splits, values, value_starters, key_starters = [], [0], [], [], []
    for cp in assigned_codepoints():
        if classes[cp] & (DROP | SPACE):
            continue
        char = chr(cp)
        full = unicodedata.normalize("NFD", char.lower())
        kept = [c for c in full if unicodedata.category(c) != "Mn"]
        if full == char and kept == [char]:
            continue
        starters = 0
        for c in full:
            starters += unicodedata.combining(c) == 0
            if unicodedata.category(c) != "Mn":
                # A folded word is never re-split on whitespace by the graph.
                assert not classes[ord(c)] & SPACE, (hex(cp), full)
                values.append(ord(c))
                value_starters.append(starters)
        keys.append(cp)
        splits.append(len(values))
        key_starters.append(starters)
    as_int32 = functools.partial(np.asarray, dtype=np.int32)
    return FoldMap(*map(as_int32, (keys, splits, values, value_starters, key_starters)))


@functools.lru_cache(maxsize=None)
@disk_cached(SOURCES)
def combining_classes():
    """(codepoints, ccc) of the characters NFD may reorder that survive the
    uncased Mn removal; sorted by codepoint for `tf.searchsorted`."""
    cps = [cp for cp in assigned_codepoints()
           if unicodedata.combining(chr(cp)) and unicodedata.category(chr(cp)) != "Mn"]
    return np.asarray(cps, np.int32), np.asarray([unicodedata.combining(chr(cp)) for cp in cps], np.int32)
