"""Token/tag files in the CoNLL layout: one token per line, sentences between blank lines.

CoNLL-2003 lines are `word POS chunk NER`; any file whose first column is the
word and one column (by default the last) a tag reads the same way, and the
other columns are ignored. `-DOCSTART-` lines start a new document (the unit
of document context).

Two tag schemes (`TAG_SCHEMES`). "chunks" (NER, CoNLL-2003's chunk column):
IOB tags, IOB1 (the original CoNLL-2003 release: `I-` opens a chunk, `B-` only
separates two adjacent chunks of one type) or IOB2 (every chunk opens with
`B-`); sentences come out in IOB2, which is what the tagger learns, and both
describe the same chunks, so conlleval scores them alike. "tags" (CoNLL-2003's
part-of-speech column): a plain tag set, read as it is, any tag allowed.

Example:
>>> sentences = read_tagged_file("conll2003/train.txt")
>>> sentences[0].words, sentences[0].tags
(('EU', 'rejects', 'German', ...), ('B-ORG', 'O', 'B-MISC', ...))
"""

import dataclasses
import re

DOCSTART = "-DOCSTART-"
OUTSIDE = "O"
TAG_SCHEMES = ("chunks", "tags")
CHUNK_PREFIXES = ("B", "I")
# Only ASCII blanks separate columns: a token such as U+00A0 or U+200B stays a token.
_COLUMN_SEPARATOR = re.compile(r"[ \t\r\n]+")


class TaggedFileError(ValueError):
    """A line that cannot be read as `word ... tag`; the message names file and line."""


@dataclasses.dataclass(frozen=True)
class TaggedSentence:
    """One sentence: its words, their tags (IOB2 for chunks), its document and the line of its
    first word."""

    words: tuple
    tags: tuple
    document: int
    path: str
    first_line: int

    def where(self, index=0):
        """`file:line` of word `index`, for error messages."""
        return f"{self.path}:{self.first_line + index}"


def split_tag(tag):
    """"B-PER" -> ("B", "PER"); "O" -> ("O", None); anything else -> ValueError."""
    if tag == OUTSIDE:
        return OUTSIDE, None
    prefix, sep, chunk_type = tag.partition("-")
    if not sep or prefix not in CHUNK_PREFIXES or not chunk_type:
        raise ValueError(f"tag {tag!r} is not IOB (O, B-TYPE or I-TYPE)")
    return prefix, chunk_type


def to_iob2(tags):
    """IOB1 or IOB2 (or a mix) -> IOB2: an `I-X` that opens a chunk becomes `B-X`."""
    out, previous_type = [], None
    for tag in tags:
        prefix, chunk_type = split_tag(tag)
        if prefix == "I" and chunk_type != previous_type:
            tag = "B-" + chunk_type
        out.append(tag)
        previous_type = chunk_type
    return out


def labels_from_types(chunk_types):
    """The IOB2 label list for these chunk types: "O", then B-/I- of each type, sorted."""
    return [OUTSIDE] + [f"{p}-{t}" for t in sorted(set(chunk_types)) for p in CHUNK_PREFIXES]


def labels_from_sentences(sentences, scheme="chunks"):
    """Every label the data can need: chunks: both B- and I- of each chunk type
    it holds; tags: every tag it holds, sorted."""
    _check_scheme(scheme)
    if scheme == "tags":
        return sorted({tag for s in sentences for tag in s.tags})
    return labels_from_types(split_tag(tag)[1] for s in sentences for tag in s.tags
                             if tag != OUTSIDE)


def _check_scheme(scheme):
    if scheme not in TAG_SCHEMES:
        raise ValueError(f"tag scheme {scheme!r} is not one of {TAG_SCHEMES}")


def check_labels(sentences, labels):
    """Raises `TaggedFileError` at the first tag outside `labels` (e.g. a `--labels` flag)."""
    known = set(labels)
    for sentence in sentences:
        for i, tag in enumerate(sentence.tags):
            if tag not in known:
                raise TaggedFileError(f"{sentence.where(i)}: tag {tag!r} is not one of {list(labels)}")


def read_tagged_file(path, tag_column=-1, scheme="chunks"):
    """All non-empty sentences of `path`; chunk tags converted to IOB2, plain
    tags (`scheme="tags"`) as they are.

    `tag_column` picks the tag among the whitespace-separated columns (word
    first; CoNLL-2003's NER tag is the last, its POS tag column 1 and its chunk
    tag column 2). Raises `TaggedFileError` naming `file:line` for a line with
    one column, a missing tag column or (chunks) a non-IOB tag, and naming the
    file when it holds no sentence.
    """
    _check_scheme(scheme)
    chunks = scheme == "chunks"
    sentences, words, tags, document, start = [], [], [], 0, None

    def close_sentence():
        if words:
            sentences.append(TaggedSentence(tuple(words), tuple(to_iob2(tags) if chunks else tags),
                                            document, path, start))
        words.clear()
        tags.clear()

    with open(path, "rb") as f:
        for line_no, raw in enumerate(f, start=1):
            where = f"{path}:{line_no}"
            try:
                line = raw.decode("utf-8-sig" if line_no == 1 else "utf-8").strip(" \t\r\n")
            except UnicodeDecodeError as e:
                raise TaggedFileError(f"{where}: not valid UTF-8 ({e.reason})") from None
            columns = _COLUMN_SEPARATOR.split(line) if line else []
            if not columns:
                close_sentence()
                continue
            if columns[0] == DOCSTART:
                close_sentence()
                document += 1
                continue
            if len(columns) < 2:
                raise TaggedFileError(f"{where}: expected `word ... tag`, got {line!r}")
            try:
                tag = columns[tag_column]
            except IndexError:
                raise TaggedFileError(
                    f"{where}: no tag column {tag_column} in {len(columns)} columns") from None
            if tag_column % len(columns) == 0:
                raise TaggedFileError(f"{where}: tag column {tag_column} is the word column")
            if chunks:
                try:
                    split_tag(tag)
                except ValueError as e:
                    raise TaggedFileError(f"{where}: {e}") from None
            if not words:
                start = line_no
            words.append(columns[0])
            tags.append(tag)
    close_sentence()
    if not sentences:
        raise TaggedFileError(f"{path}: no examples (no `word ... tag` line)")
    return sentences
