"""Streams a pretraining corpus in the original format (one sentence per
line, blank lines between documents) in bounded chunks of documents, so
memory does not grow with the corpus.

Two choices differ from the original reader, which held the whole corpus in
memory: a document ends at the end of its file, and a document longer than
`max_chunk_chars` is cut at a line boundary into several documents.

Documents are numbered through the corpus (the input files in order), and
that number is a document's identity: chunks are cut from it alone (block
`n // documents_per_chunk`, split where its text passes `max_chunk_chars`), so
a reader that starts in the middle of a file (the Beam pipeline,
`beam_writer`) cuts the same chunks as one that reads the corpus from the
start (the local writer).
"""

import dataclasses
import glob
import itertools
import os

from absl import logging

MAX_CHUNK_CHARS = 4_000_000
_LOGGED_INVALID_LINES = 5

# What happens to a line that is not valid UTF-8: its bad bytes become U+FFFD
# and it is kept, it stops the run, or it is left out; counted and logged
# with its file and line in every case.
REPLACE, ERROR, SKIP = "replace", "error", "skip"


class CorpusError(ValueError):
    """An input that cannot be read; the message names the file."""


@dataclasses.dataclass
class ReadStats:
    files: int = 0
    lines: int = 0
    bytes: int = 0
    invalid_utf8_lines: int = 0
    skipped_lines: int = 0
    bad_lines: list = dataclasses.field(default_factory=list)  # ("path:line", reason), the first few
    keep_bad_lines: int = 0  # how many of them to keep
    log_bad_lines: int = _LOGGED_INVALID_LINES  # how many to log (0 for a second reading)

    def counts(self):
        return {name: getattr(self, name)
                for name in ("files", "lines", "bytes", "invalid_utf8_lines", "skipped_lines")}


@dataclasses.dataclass
class Chunk:
    """Consecutive documents of the corpus, the unit of work of both writers.

    `first_document` (the corpus-wide number of its first document) is its
    identity; document i of the chunk is document `first_document + i`.
    `block` and `part` place it: documents `block * documents_per_chunk` on,
    and its place among that block's parts.
    """

    block: int
    part: int
    first_document: int
    documents: list  # lists of lines

    def first_shard(self, num_shards):
        """The shard its first record goes to: neighbouring chunks start on different shards."""
        return (self.block + self.part) % num_shards


def expand_input_files(patterns, match=None):
    """Comma-separated paths or globs (or a list of them) -> list of files, in order.

    A pattern that matches no file is an error naming the pattern. `match`
    (pattern -> files, sorted) replaces the local file system's glob: the Beam
    writer's reads gs:// and the like.
    """
    if isinstance(patterns, str):
        patterns = patterns.split(",")
    files = []
    for pattern in (p.strip() for p in patterns):
        if not pattern:
            continue
        matches = (match or local_match)(pattern)
        if not matches:
            raise CorpusError(f"input file not found: {pattern!r}")
        files.extend(matches)
    if not files:
        raise CorpusError("no input files given")
    return files


def local_match(pattern):
    matches = sorted(glob.glob(pattern)) if glob.has_magic(pattern) else [pattern]
    return [m for m in matches if os.path.isfile(m)]


def decode_line(raw, path, line_no, stats, strict_utf8=False, invalid=None):
    """UTF-8 text of one line, or None for a line left out. Invalid bytes
    become U+FFFD (which the tokenizer then drops, as the original's 'ignore')
    and are counted (`REPLACE`, the default); with `strict_utf8` (`ERROR`)
    they are an error naming the file and line; with `SKIP` the line is
    counted and left out."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        invalid = invalid or (ERROR if strict_utf8 else REPLACE)
        where = f"{path}:{line_no}"
        if invalid == ERROR:
            raise CorpusError(f"{where}: invalid UTF-8 ({e.reason})") from None
        stats.invalid_utf8_lines += 1
        stats.skipped_lines += invalid == SKIP
        action = "line skipped" if invalid == SKIP else "bad bytes replaced"
        if stats.invalid_utf8_lines <= stats.log_bad_lines:
            logging.warning("%s: invalid UTF-8 (%s), %s", where, e.reason, action)
        if len(stats.bad_lines) < stats.keep_bad_lines:
            stats.bad_lines.append((where, f"invalid UTF-8 ({e.reason}), {action}"))
        return None if invalid == SKIP else raw.decode("utf-8", "replace")


def file_documents(lines, path, stats, invalid=REPLACE, offset=0, line_no=0,
                   max_document_chars=MAX_CHUNK_CHARS):
    """Yields (byte offset, line number, lines) of each document of the raw
    lines of one file, its stripped non-empty lines; `offset` and `line_no`
    are where `lines` start in the file (a document's first line, or 0)."""
    document, chars, start = [], 0, None
    for raw in lines:
        line_no += 1
        stats.lines += 1
        stats.bytes += len(raw)
        here, offset = offset, offset + len(raw)
        line = decode_line(raw, path, line_no, stats, invalid=invalid)
        if line is None:
            continue
        line = line.strip()
        if not line:
            if document:
                yield start + (document,)
            document, chars = [], 0
            continue
        if not document:
            start = (here, line_no)
        document.append(line)
        chars += len(line)
        if chars >= max_document_chars:
            yield start + (document,)
            document, chars = [], 0
    if document:
        yield start + (document,)


def read_documents(files, stats, max_document_chars=MAX_CHUNK_CHARS, strict_utf8=False):
    """Yields documents as lists of stripped, non-empty lines."""
    for path in files:
        stats.files += 1
        with open(path, "rb") as f:
            for _, _, document in file_documents(f, path, stats, ERROR if strict_utf8 else REPLACE,
                                                 max_document_chars=max_document_chars):
                yield document


def chunk_documents(documents, documents_per_chunk, max_chunk_chars=MAX_CHUNK_CHARS, first_document=0):
    """Chunks of the documents of the corpus, numbered from `first_document`
    on: blocks of `documents_per_chunk` documents, each cut into parts of
    about `max_chunk_chars` characters."""
    numbered = enumerate(documents, start=first_document)
    for block, members in itertools.groupby(numbered, key=lambda item: item[0] // documents_per_chunk):
        yield from split_block(block, members, max_chunk_chars)


def split_block(block, numbered_documents, max_chunk_chars=MAX_CHUNK_CHARS):
    """The chunks of one block of (number, document) pairs: a part ends after
    the document that brings its text to `max_chunk_chars`."""
    part, documents, chars, first = 0, [], 0, None
    for number, document in numbered_documents:
        if not documents:
            first = number
        documents.append(document)
        chars += sum(len(line) for line in document)
        if chars >= max_chunk_chars:
            yield Chunk(block, part, first, documents)
            part, documents, chars = part + 1, [], 0
    if documents:
        yield Chunk(block, part, first, documents)
