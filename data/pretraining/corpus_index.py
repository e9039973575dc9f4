"""Where each document of a corpus starts, so that many readers can cut the
local writer's chunks (`corpus_reader.chunk_documents`) in parallel.

One pass over each file (`scan_file`, a file per worker) counts its documents
and marks where every `MARK_EVERY`-th one starts (byte offset and line
number); from the counts of all files, `plan_blocks` gives each block of
`documents_per_chunk` documents the pieces of files it spans, and
`read_block` reads one block from the nearest marks and cuts it into the same
chunks as the local writer. The index holds a few numbers per
`MARK_EVERY` documents, whatever the size of the corpus.
"""

import dataclasses
import itertools

from data.pretraining.corpus_reader import MAX_CHUNK_CHARS, ReadStats, file_documents, split_block

MARK_EVERY = 128
KEEP_BAD_LINES = 100  # bad lines listed per file; all are counted


@dataclasses.dataclass
class FileIndex:
    number: int  # place among the input files
    path: str
    documents: int
    marks: list  # (document number in the file, byte offset, lines before it) of every mark_every-th
    mark_every: int
    stats: dict  # ReadStats.counts()
    bad_lines: list  # ("path:line", reason), the first KEEP_BAD_LINES


@dataclasses.dataclass
class Piece:
    """Documents [first, first + count) of one file, read from the mark at
    `offset` (`line_no` lines into the file), `skip` documents before them."""

    path: str
    offset: int
    line_no: int
    skip: int
    count: int


@dataclasses.dataclass
class BlockPlan:
    block: int
    first_document: int  # corpus-wide number of the block's first document
    pieces: list


def scan_file(number, path, open_file, invalid, max_chunk_chars=MAX_CHUNK_CHARS):
    """The FileIndex of one input file; `open_file(path)` opens it for binary reading."""
    stats = ReadStats(files=1, keep_bad_lines=KEEP_BAD_LINES)
    marks, documents, every = [], 0, MARK_EVERY
    with open_file(path) as f:
        for offset, line_no, _ in file_documents(f, path, stats, invalid, max_document_chars=max_chunk_chars):
            if documents % every == 0:
                marks.append((documents, offset, line_no - 1))
            documents += 1
    return FileIndex(number, path, documents, marks, MARK_EVERY, stats.counts(), stats.bad_lines)


def plan_blocks(indexes, documents_per_chunk):
    """Yields the BlockPlan of every block of the corpus, in order, from the
    FileIndex of each file."""
    plan, start = None, 0
    for index in sorted(indexes, key=lambda i: i.number):
        done = 0
        while done < index.documents:
            number = start + done
            block = number // documents_per_chunk
            count = min(index.documents - done, (block + 1) * documents_per_chunk - number)
            if plan is None or plan.block != block:
                if plan is not None:
                    yield plan
                plan = BlockPlan(block, number, [])
            plan.pieces.append(_piece(index, done, count))
            done += count
        start += index.documents
    if plan is not None:
        yield plan


def _piece(index, first, count):
    """Documents [first, first + count) of a file, from the last mark at or before `first`."""
    mark = index.marks[first // index.mark_every]
    return Piece(index.path, mark[1], mark[2], first - mark[0], count)


def read_block(plan, open_file, invalid, max_chunk_chars=MAX_CHUNK_CHARS):
    """The chunks of one block, as `corpus_reader.chunk_documents` cuts them."""

    def documents():
        for piece in plan.pieces:
            with open_file(piece.path) as f:
                f.seek(piece.offset)
                found = file_documents(f, piece.path, ReadStats(log_bad_lines=0), invalid, piece.offset, piece.line_no,
                                       max_document_chars=max_chunk_chars)
                for _, _, document in itertools.islice(found, piece.skip, piece.skip + piece.count):
                    yield document

    yield from split_block(plan.block, enumerate(documents(), start=plan.first_document), max_chunk_chars)
