"""The offline pretraining-data writer: streams a corpus in chunks through a
pool of worker processes and writes their records, in chunk order, to the
output shards (round-robin, as dealt by each chunk). `beam_writer` writes
the same shards with an Apache Beam pipeline.

At most two chunks per worker are in flight, so memory stays bounded however
large the corpus is, and results are written in chunk order, so the output
is the same for any number of workers. A shard that gets no record is not
written. The output name is locked while it is written, so a second writer of
it is refused rather than renaming its shards over the first's, and the
records' metadata (`records_metadata`) is written beside the shards. The
writer owns its output name (`output_names`): it removes the temporary files
of a killed write of it first, and after writing what an earlier write left
that this one did not replace (shards of another --output_shards).
"""

import collections
import contextlib
import multiprocessing
import os
import time

from absl import logging

from data.pretraining import corpus_reader
from data.pretraining.output_names import leftovers, output_name
from data.pretraining.records_metadata import remove_metadata, write_metadata
from data.pretraining.tfrecord_writer import ShardedRecordWriter
from utils.output_dir_lock import output_file_lock

_worker_processor = None


def output_paths(output_file, output_shards=1):
    """Comma-separated output files as given, or `output_shards` numbered
    shards `<output_file>-00000-of-0000N` of one name."""
    paths = [p.strip() for p in output_file.split(",") if p.strip()]
    if not paths:
        raise ValueError("no output file given")
    if output_shards < 1:
        raise ValueError("output_shards must be >= 1")
    if output_shards == 1:
        return paths
    if len(paths) > 1:
        raise ValueError("give either several comma-separated output files or output_shards > 1, not both")
    return [f"{paths[0]}-{i:05d}-of-{output_shards:05d}" for i in range(output_shards)]


def write_pretraining_data(
    input_files,
    output_files,
    vocab_file,
    config,
    do_lower_case=True,
    num_workers=1,
    documents_per_chunk=2000,
    log_every_seconds=10.0,
    *,
    processor_class,
    max_chunk_chars=corpus_reader.MAX_CHUNK_CHARS,
):
    """Writes the TFRecords and returns the summary counts (a dict); a corpus
    that yields no instance is an error and leaves no output.

    `processor_class` is the family's chunk processor (the contract is
    `chunk_processor.ChunkProcessor`). The counts include `records_per_shard`."""
    input_files = corpus_reader.expand_input_files(input_files)
    processor_args = (processor_class, config, vocab_file, do_lower_case, len(output_files))
    processor = processor_class(*processor_args[1:])  # fails early on a bad vocab
    read_stats = corpus_reader.ReadStats()
    documents = corpus_reader.read_documents(input_files, read_stats, max_chunk_chars, strict_utf8=processor.strict_utf8)
    chunks = corpus_reader.chunk_documents(documents, documents_per_chunk, max_chunk_chars)
    counts = collections.Counter()
    progress = _Progress(counts, read_stats, log_every_seconds)
    with locked_outputs(output_files):
        temporary, earlier = leftovers(output_files)
        remove_files(temporary)
        with ShardedRecordWriter(output_files) as writer:
            for blobs, shard_counts, chunk_counts in _process_in_order(
                    chunks, processor, processor_args, num_workers):
                writer.write(blobs, shard_counts)
                counts.update(chunk_counts)
                progress.maybe_log()
            if not counts["instances"]:
                # Raised inside the writer so that no empty output is left behind.
                raise corpus_reader.CorpusError(
                    f"{processor.no_output_reason(input_files)} ({read_stats.lines} lines read); nothing written")
            remove_metadata(output_files)
        remove_files(earlier)
        write_metadata(output_files, processor.family, processor.metadata_settings(), writer.counts)
    counts.update(
        files=read_stats.files,
        lines=read_stats.lines,
        bytes=read_stats.bytes,
        invalid_utf8_lines=read_stats.invalid_utf8_lines,
    )
    counts["seconds"] = time.time() - progress.start
    counts = dict(counts)
    counts["records_per_shard"] = writer.counts
    return counts


@contextlib.contextmanager
def locked_outputs(output_files):
    """Holds the lock of every output name of `output_files` (`utils.output_dir_lock`)."""
    with contextlib.ExitStack() as stack:
        for name in sorted({output_name(p) for p in output_files}):
            stack.enter_context(output_file_lock(name))
        yield


def remove_files(paths):
    """Removes `paths` (of the output names this process holds locked), each logged."""
    for path in paths:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
            logging.info("removed %s, left by an earlier write of its output", path)


def shard_lines(output_files, records_per_shard):
    """One line per shard: its records, or that it got none and was not written."""
    lines = [f"{path}: {count} records" if count else f"{path}: no records, not written"
             for path, count in zip(output_files, records_per_shard)]
    empty = records_per_shard.count(0)
    if empty:
        lines.append(f"{empty} of {len(output_files)} shards got no records and were not written")
    return lines


def _process_in_order(chunks, processor, processor_args, num_workers):
    """(shard blobs, shard counts, counts) of each chunk, in chunk order."""
    if num_workers <= 1:
        for chunk in chunks:
            yield processor(chunk)
        return
    context = multiprocessing.get_context("spawn")
    with context.Pool(num_workers, initializer=_init_worker, initargs=processor_args) as pool:
        pending = collections.deque()
        for chunk in chunks:
            pending.append(pool.apply_async(_process_chunk, (chunk,)))
            if len(pending) >= 2 * num_workers:
                yield pending.popleft().get()
        while pending:
            yield pending.popleft().get()


def _init_worker(processor_class, *processor_args):
    global _worker_processor
    _worker_processor = processor_class(*processor_args)


def _process_chunk(chunk):
    return _worker_processor(chunk)


class _Progress:
    """A progress line every `every` seconds."""

    def __init__(self, counts, read_stats, every):
        self.counts, self.read_stats, self.every = counts, read_stats, every
        self.start = self.last = time.time()

    def maybe_log(self):
        now = time.time()
        if now - self.last < self.every:
            return
        self.last = now
        elapsed = now - self.start
        logging.info(
            "read %.1f MB, %d documents -> %d instances (%.0f instances/s)",
            self.read_stats.bytes / 1e6,
            self.counts["documents"],
            self.counts["instances"],
            self.counts["instances"] / elapsed,
        )


def framed_summary(counts, lines):
    """A family's summary `lines` of its records, after the corpus read and
    before the speed (for writers that stop at invalid UTF-8)."""
    get = counts.get
    seconds = max(get("seconds", 0.0), 1e-9)
    # Only a Beam pipeline skips such lines (`beam_pipeline`); the local writer stops there.
    skipped = f", invalid UTF-8 lines skipped {get('skipped_lines')}" if get("skipped_lines") else ""
    return [f"files {get('files', 0)}, lines {get('lines', 0)}, {get('bytes', 0) / 1e6:.1f} MB{skipped}", *lines,
            f"{seconds:.1f} s, {get('instances', 0) / seconds:.0f} records/s"]


def summary_lines(counts, config):
    """Human-readable summary of a run's counts."""
    get = counts.get
    instances, targets = max(get("instances", 0), 1), max(get("targets", 0), 1)
    passes = max(get("documents", 0) * config.dupe_factor, 1)
    seconds = max(get("seconds", 0.0), 1e-9)
    lines = [
        f"files {get('files', 0)}, lines {get('lines', 0)}, {get('bytes', 0) / 1e6:.1f} MB, "
        f"invalid UTF-8 lines {get('invalid_utf8_lines', 0)} (bad bytes replaced)",
        f"documents {get('documents', 0)} (of {get('documents_read', 0)} read; "
        f"{get('single_sentence_documents', 0)} with one sentence), {get('corpus_tokens', 0)} tokens, "
        f"lines without tokens {get('lines_without_tokens', 0)}, "
        f"lines longer than a sequence {get('long_lines', 0)} (truncated)",
        f"instances {get('instances', 0)}, tokens {get('tokens', 0)} "
        f"({get('tokens', 0) / instances:.1f} per instance, {get('full_length', 0) / instances:.1%} full length); "
        f"short target length in {get('short_targets', 0) / passes:.1%} of document passes",
        f"LM targets {get('targets', 0)} = {get('targets', 0) / max(get('tokens', 0), 1):.2%} of tokens",
    ]
    if not config.left_to_right:
        random = get("targets", 0) - get("replaced_by_mask", 0) - get("kept", 0)
        lines[-1] += (
            f"; [MASK] {get('replaced_by_mask', 0) / targets:.1%}, kept {get('kept', 0) / targets:.1%}, "
            f"random {random / targets:.1%}"
        )
    if config.next_sentence_prediction:
        lines.append(f"next sentence random {get('random_next', 0) / instances:.1%}")
    lines.append(f"{seconds:.1f} s, {get('instances', 0) / seconds:.0f} instances/s")
    return lines
