"""Tables and patterns for GPT's in-graph tokenizer, computed in Python from
the very libraries the original pipeline calls (ftfy, spaCy, `str.lower`),
so the graph follows the installed versions:

- per-character `ftfy.fix_text` (quotes uncurled, ligatures and full-width
  forms folded, control characters dropped, C1 controls read as cp1252,
  line breaks to '\\n'); what ftfy does to longer sequences (mojibake) is not
  in the table;
- ftfy's HTML entities, each decoded and fixed by `ftfy.fix_text`;
- `str.isspace` (Python's `\\s`, which text_standardize and spaCy split on);
- spaCy's English special cases and its prefix, suffix, infix and URL
  patterns, rewritten for RE2 (lookbehinds become captured context).
"""

import functools
import re
import unicodedata

import ftfy

from data.text import unicode_tables as ut
from data.text.char_maps import char_map
from families.gpt.tokenizer_words import english_tokenizer
from utils.table_cache import disk_cached

# What the tables are computed from, beside the packages each names (`utils.table_cache`).
SOURCES = ("data/text", "families/gpt")

_UNCHANGED_CATEGORIES = ("Lu", "Ll", "Lt", "Lo", "Nd", "Nl", "No")


def _ftfy_may_change(char):
    """False for the letters and digits ftfy leaves alone (no compatibility
    form, not ASCII): they are most of Unicode, and probing them costs seconds."""
    return not (ord(char) > 0x7F and unicodedata.category(char) in _UNCHANGED_CATEGORIES
                and unicodedata.normalize("NFKC", char) == char)


@functools.lru_cache(maxsize=None)
@disk_cached(SOURCES, ("ftfy",))
def fix_text_map():
    """`ftfy.fix_text` of each character alone."""
    return char_map(ftfy.fix_text, (cp for cp in ut.assigned_codepoints()
                                     if _ftfy_may_change(chr(cp))))


@functools.lru_cache(maxsize=None)
@disk_cached(SOURCES)
def lower_map():
    return char_map(str.lower, ut.assigned_codepoints())


@functools.lru_cache(maxsize=None)
@disk_cached(SOURCES, ("spacy",))
def special_cases():
    """{string: its tokens joined by ' '} of spaCy's English exceptions
    (those without whitespace: chunks never hold any)."""
    from spacy.attrs import ORTH
    return {key: " ".join(token[ORTH] for token in tokens)
            for key, tokens in english_tokenizer().rules.items() if not any(c.isspace() for c in key)}


def to_re2(pattern):
    """A Python `re` pattern of spaCy's in RE2 syntax (escapes only)."""
    pattern = re.sub(r"\\u([0-9a-fA-F]{4})", r"\\x{\1}", pattern)
    pattern = re.sub(r"\\U([0-9a-fA-F]{8})", lambda m: f"\\x{{{int(m.group(1), 16):x}}}", pattern)
    return pattern


def _group_end(pattern, start):
    """Index just past the group opened at `start` (classes and escapes skipped)."""
    depth, i, in_class = 0, start, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "]":
                i += 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError(f"unbalanced pattern {pattern[:60]!r}")


def split_lookarounds(pattern):
    """(lookbehind, body, lookahead) of `(?<=L)B(?=R)`; absent parts are ''."""
    behind = ahead = ""
    if pattern.startswith("(?<="):
        end = _group_end(pattern, 0)
        behind, pattern = pattern[4:end - 1], pattern[end:]
    if pattern.endswith(")"):
        for i in range(len(pattern)):
            if pattern.startswith("(?=", i) and _group_end(pattern, i) == len(pattern):
                pattern, ahead = pattern[:i], pattern[i + 3:-1]
                break
    return behind, pattern, ahead


def _english(name):
    from spacy.lang.en import English
    return [p for p in getattr(English.Defaults, name) if p.strip()]


@functools.lru_cache(maxsize=None)
@disk_cached(SOURCES, ("spacy",))
def prefix_pattern():
    """spaCy's prefixes as one RE2 alternation, in spaCy's order (RE2, as
    Python, takes the first alternative that matches). Its one prefix with a
    negative lookahead, '+' not before a digit, captures the character after
    it instead: replacing a match with `\\1` removes exactly the prefix."""
    alternatives = []
    for p in _english("prefixes"):
        if "(?" in p:
            body, ahead = p.split("(?!")
            assert ahead == "[0-9])" and "([^0-9]|$)" not in "".join(alternatives), p
            p = f"{body}([^0-9]|$)"
        alternatives.append(f"(?:{to_re2(p)})")
    return "|".join(alternatives)


@functools.lru_cache(maxsize=None)
@disk_cached(SOURCES, ("spacy",))
def suffix_patterns():
    """[(context, body)]: a suffix `body` at the end of the string that follows
    `context` (spaCy's lookbehind; '' for none)."""
    found = []
    for p in _english("suffixes"):
        behind, body, ahead = split_lookarounds(p)
        assert not ahead, p
        found.append((to_re2(behind), to_re2(body)))
    return found


@functools.lru_cache(maxsize=None)
@disk_cached(SOURCES, ("spacy",))
def infix_patterns():
    """[(before, body, after)] of spaCy's infixes: `body` splits where
    `before` ends just before it and `after` starts just after it."""
    return [tuple(map(to_re2, split_lookarounds(p))) for p in _english("infixes")]


@functools.lru_cache(maxsize=None)
@disk_cached(SOURCES, ("spacy",))
def url_pattern():
    """spaCy's URL_MATCH for RE2: its negative lookaheads (private IP
    ranges) dropped, and `\\w`, `\\d`, `\\S` as Python reads them in a chunk
    without whitespace (Unicode letters and digits; any character); its
    length limits on domain labels ({0,62}, {2,63}) dropped, which RE2's
    automaton cannot afford."""
    pattern = english_tokenizer().url_match.__self__.pattern
    pattern = re.sub(r"^\(\?u\)", "", pattern)
    while "(?!" in pattern:
        start = pattern.index("(?!")
        pattern = pattern[:start] + pattern[_group_end(pattern, start):]
    pattern = pattern.replace(r"\w", r"\pL\pN_").replace(r"\d", r"\p{Nd}").replace(r"\S", ".")
    pattern = pattern.replace("{0,62}", "*").replace("{2,63}", "{2,}")
    return "(?s)" + to_re2(pattern)


@functools.lru_cache(maxsize=None)
@disk_cached(SOURCES, ("spacy", "ftfy"))
def affixed_special_cases():
    """[(tokens spaCy's affix rules alone split a special case into, its own
    tokens joined by spaces)] where the two differ: spaCy's special matcher
    re-tokenizes such runs (`tool''` -> `tool`, `''`). Longest runs first;
    special cases holding whitespace or a character text_standardize spaces
    out are left out: they never reach spaCy whole."""
    from spacy.tokenizer import Tokenizer

    from families.gpt.text_standardize import SPACED_PUNCTUATION
    tokenizer = english_tokenizer()
    bare = Tokenizer(tokenizer.vocab, rules={}, prefix_search=tokenizer.prefix_search,
                     suffix_search=tokenizer.suffix_search, infix_finditer=tokenizer.infix_finditer,
                     token_match=tokenizer.token_match, url_match=tokenizer.url_match)
    found = []
    for key in special_cases():
        tokens = [t.text for t in bare(key)]
        if len(tokens) > 1 and " ".join(tokens) != special_cases()[key] \
                and not re.search(SPACED_PUNCTUATION, key):
            found.append((tokens, special_cases()[key]))
    return sorted(found, key=lambda case: -len(case[0]))


HTML_ENTITY = r"&#?[0-9A-Za-z]{1,24};"  # ftfy's HTML_ENTITY_RE
NUMERIC_ENTITIES_BELOW = 0x3000  # numeric references in the table: decimal and hex below this


@functools.lru_cache(maxsize=None)
@disk_cached(SOURCES, ("ftfy",))
def html_entities():
    """{entity: ftfy.fix_text(entity)} for ftfy's named entities and the
    numeric references below NUMERIC_ENTITIES_BELOW, where ftfy changes them;
    whitespace in a value becomes a space (the words split there), and
    values holding a newline are left out (a newline is a word of its own)."""
    from ftfy.chardata import HTML_ENTITIES
    numeric = [form for n in range(NUMERIC_ENTITIES_BELOW)
               for form in {f"&#{n};", f"&#x{n:x};", f"&#x{n:X};"}]
    table = {}
    for entity in list(HTML_ENTITIES) + numeric:
        value = ftfy.fix_text(entity)
        if value != entity and "\n" not in value:
            table[entity] = "".join(" " if c.isspace() else c for c in value)
    return table
