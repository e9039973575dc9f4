"""Streams a pretraining corpus in the original format (one sentence per
line, blank lines between documents) in bounded chunks of documents, so
memory does not grow with the corpus.

Two choices differ from the original reader, which held the whole corpus in
memory: a document ends at the end of its file, and a document longer than
`max_chunk_chars` is cut at a line boundary into several documents.
"""

import dataclasses
import glob
import os

from absl import logging

MAX_CHUNK_CHARS = 4_000_000
_LOGGED_INVALID_LINES = 5


class CorpusError(ValueError):
    """An input that cannot be read; the message names the file."""


@dataclasses.dataclass
class ReadStats:
    files: int = 0
    lines: int = 0
    bytes: int = 0
    invalid_utf8_lines: int = 0


def expand_input_files(patterns):
    """Comma-separated paths or globs (or a list of them) -> list of files, in order.

    A pattern that matches no file is an error naming the pattern.
    """
    if isinstance(patterns, str):
        patterns = patterns.split(",")
    files = []
    for pattern in (p.strip() for p in patterns):
        if not pattern:
            continue
        matches = sorted(glob.glob(pattern)) if glob.has_magic(pattern) else [pattern]
        matches = [m for m in matches if os.path.isfile(m)]
        if not matches:
            raise CorpusError(f"input file not found: {pattern!r}")
        files.extend(matches)
    if not files:
        raise CorpusError("no input files given")
    return files


def decode_line(raw, path, line_no, stats, strict_utf8=False):
    """UTF-8 text of one line; invalid bytes become U+FFFD (which the
    tokenizer then drops, as the original's 'ignore') and are counted, or with
    `strict_utf8` are an error naming the file and line."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        if strict_utf8:
            raise CorpusError(f"{path}:{line_no}: invalid UTF-8 ({e.reason})") from None
        stats.invalid_utf8_lines += 1
        if stats.invalid_utf8_lines <= _LOGGED_INVALID_LINES:
            logging.warning("%s:%d: invalid UTF-8 (%s), bad bytes replaced", path, line_no, e.reason)
        return raw.decode("utf-8", "replace")


def read_documents(files, stats, max_document_chars=MAX_CHUNK_CHARS, strict_utf8=False):
    """Yields documents as lists of stripped, non-empty lines."""
    for path in files:
        stats.files += 1
        document, chars = [], 0
        with open(path, "rb") as f:
            for line_no, raw in enumerate(f, start=1):
                stats.lines += 1
                stats.bytes += len(raw)
                line = decode_line(raw, path, line_no, stats, strict_utf8).strip()
                if not line:
                    if document:
                        yield document
                    document, chars = [], 0
                    continue
                document.append(line)
                chars += len(line)
                if chars >= max_document_chars:
                    yield document
                    document, chars = [], 0
        if document:
            yield document


def chunk_documents(documents, documents_per_chunk, max_chunk_chars=MAX_CHUNK_CHARS):
    """Groups documents into lists of at most `documents_per_chunk` documents
    and about `max_chunk_chars` characters."""
    chunk, chars = [], 0
    for document in documents:
        chunk.append(document)
        chars += sum(len(line) for line in document)
        if len(chunk) >= documents_per_chunk or chars >= max_chunk_chars:
            yield chunk
            chunk, chars = [], 0
    if chunk:
        yield chunk
