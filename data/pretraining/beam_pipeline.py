"""The pretraining-data writer as an Apache Beam pipeline, for any family's
chunk processor (`chunk_processor.ChunkProcessor`) and any runner.

    input files -> ScanFiles (one file per worker: its documents and where they start, `corpus_index`)
      -> PlanBlocks (every block of documents_per_chunk documents and the file pieces it spans)
      -> WriteChunks (a block per worker: its chunks cut and processed as the local writer does,
                      each chunk's records in a temporary file, one range per shard)
      -> GroupByKey(shard) -> WriteShards (a shard's ranges in chunk order into a temporary shard)
      -> Finalize (the shards renamed into place, what an earlier write left removed, the metadata written)

The shards are byte for byte the local writer's: the same chunks, the same
processor, and each shard's records in chunk order. Only references to the
records go through the shuffle, so a worker holds one chunk's records (or one
range of them) at a time on every runner, the local ones included; records
are written once to temporary files beside the outputs and copied once into
the shards. A failed job leaves the earlier output as it was (and its
temporary folder, `.<name>.beam-<id>`, to delete).

Counters (the local writer's summary counts) are Beam metrics in the
namespace `pretraining_data`. A line that is not valid UTF-8 never stops
the job: it is counted and listed with its file and line in
`.<name>.bad_lines.txt` beside the shards, and replaced (families that
replace bad bytes) or left out (families whose local writer stops there).
"""

import contextlib
import os
import shutil
import tempfile
import time

import apache_beam as beam
from absl import logging
from apache_beam.io.filesystem import BeamIOError, CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics

from data.pretraining import corpus_index
from data.pretraining.output_names import leftovers, output_name
from data.pretraining.records_metadata import metadata_path, metadata_texts, write_metadata

NAMESPACE = "pretraining_data"
_PROGRESS_SECONDS = 30.0


def open_file(path):
    return FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED)


def create_file(path):
    return FileSystems.create(path, compression_type=CompressionTypes.UNCOMPRESSED)


def bad_lines_path(output_file):
    """`.<name>.bad_lines.txt` beside the output's shards and metadata."""
    directory, name = os.path.split(output_name(output_file))
    return os.path.join(directory, f".{name}.bad_lines.txt")


@contextlib.contextmanager
def local_copy(path):
    """`path` itself on the local file system, else a temporary local copy
    (the family's tokenizer reads a local vocabulary file)."""
    if "://" not in path:
        yield path
        return
    directory = tempfile.mkdtemp()
    try:
        copy = os.path.join(directory, os.path.basename(path))
        with open_file(path) as source, open(copy, "wb") as target:
            shutil.copyfileobj(source, target)
        yield copy
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def add_counts(counts):
    for name, value in counts.items():
        if value:
            Metrics.counter(NAMESPACE, name).inc(int(value))


class ScanFile(beam.DoFn):
    """(file number, path) -> its `corpus_index.FileIndex`; counts what was read."""

    def __init__(self, invalid, max_chunk_chars):
        self.invalid, self.max_chunk_chars = invalid, max_chunk_chars

    def process(self, numbered_path):
        number, path = numbered_path
        index = corpus_index.scan_file(number, path, open_file, self.invalid, self.max_chunk_chars)
        add_counts(index.stats)
        yield index


class WriteChunks(beam.DoFn):
    """A `corpus_index.BlockPlan` -> its chunks' records in temporary files;
    yields (shard, (first document, file, offset, length, records)) for each
    shard a chunk has records for."""

    def __init__(self, processor_args, invalid, max_chunk_chars, temp_dir):
        self.processor_args = processor_args
        self.invalid, self.max_chunk_chars, self.temp_dir = invalid, max_chunk_chars, temp_dir

    def setup(self):
        processor_class, config, vocab_file, do_lower_case, num_shards = self.processor_args
        self._files = contextlib.ExitStack()
        vocab_file = self._files.enter_context(local_copy(vocab_file))
        self.processor = processor_class(config, vocab_file, do_lower_case, num_shards)
        self._progress = _Progress()

    def teardown(self):
        self._files.close()

    def process(self, plan):
        for chunk in corpus_index.read_block(plan, open_file, self.invalid, self.max_chunk_chars):
            blobs, shard_counts, counts = self.processor(chunk)
            add_counts(counts)
            self._progress.update(counts)
            if not any(shard_counts):
                continue
            path = FileSystems.join(self.temp_dir, f"chunk-{chunk.first_document:012d}")
            with create_file(path) as f:
                for blob in blobs:
                    f.write(blob)
            offset = 0
            for shard, (blob, count) in enumerate(zip(blobs, shard_counts)):
                if count:
                    yield shard, (chunk.first_document, path, offset, len(blob), count)
                offset += len(blob)


class WriteShard(beam.DoFn):
    """(shard, its ranges) -> the shard's records, in chunk order, in a
    temporary file; yields (shard, records, that file)."""

    def __init__(self, temp_dir):
        self.temp_dir = temp_dir

    def process(self, shard_ranges):
        shard, ranges = shard_ranges
        path = FileSystems.join(self.temp_dir, f"shard-{shard:05d}")
        with create_file(path) as out:
            for _, source, offset, length, _ in sorted(ranges):
                with open_file(source) as f:
                    f.seek(offset)
                    data = f.read(length)
                if len(data) != length:
                    raise OSError(f"{source}: {len(data)} bytes at {offset}, expected {length}")
                out.write(data)
        yield shard, sum(r[4] for r in ranges), path


def finalize(shards, indexes, output_files, family, settings, temp_dir):
    """Renames the shards into place, removes what an earlier write of the
    output names left that this one does not replace (shards that got no
    record now or of another --output_shards, temporary files of a killed
    local write: `output_names.leftovers`), writes the metadata and the
    bad-lines report, and removes the temporary folder. With no record at all,
    the earlier output is left as it was."""
    records = [0] * len(output_files)
    for shard, count, _ in shards:
        records[shard] = count
    local = all("://" not in p for p in output_files)
    if sum(records):
        temporary, earlier = leftovers(output_files, *(() if local else (_listing, _read)))
        metadata = [p for p in sorted({metadata_path(p) for p in output_files}) if FileSystems.exists(p)]
        if metadata:
            FileSystems.delete(metadata)  # before the shards it describes are replaced
        FileSystems.rename([p for _, _, p in shards], [output_files[s] for s, _, _ in shards])
        unwritten = [p for p, count in zip(output_files, records) if not count]
        stale = [p for p in unwritten + temporary + earlier if FileSystems.exists(p)]
        if stale:
            FileSystems.delete(stale)
        if local:
            write_metadata(output_files, family, settings, records)
        else:
            for path, text in metadata_texts(output_files, family, settings, records).items():
                with create_file(path) as f:
                    f.write(text.encode("utf-8"))
    _write_bad_lines(indexes, output_files)
    _remove_folder(temp_dir)


def _listing(directory, prefix):
    """The paths in `directory` whose names start with `prefix`, on any file system Beam reads."""
    try:
        return [m.path for m in FileSystems.match([FileSystems.join(directory, prefix) + "*"])[0].metadata_list]
    except BeamIOError:
        return []


def _read(path):
    if not FileSystems.exists(path):
        return None
    with open_file(path) as f:
        return f.read()


def _remove_folder(path):
    if "://" not in path:
        shutil.rmtree(path, ignore_errors=True)
        return
    found = FileSystems.match([FileSystems.join(path, "*")])[0].metadata_list
    if found:
        FileSystems.delete([m.path for m in found])


def _write_bad_lines(indexes, output_files):
    paths = sorted({bad_lines_path(p) for p in output_files})
    lines = []
    for index in sorted(indexes, key=lambda i: i.number):
        lines += [f"{where}: {reason}" for where, reason in index.bad_lines]
        unlisted = index.stats["invalid_utf8_lines"] - len(index.bad_lines)
        if unlisted:
            lines.append(f"{index.path}: {unlisted} more invalid UTF-8 lines, not listed")
    for path in paths:
        if lines:
            with create_file(path) as f:
                f.write("".join(line + "\n" for line in lines).encode("utf-8"))
        elif FileSystems.exists(path):
            FileSystems.delete([path])


def build_pipeline(pipeline, files, processor_args, output_files, family, settings, documents_per_chunk,
                   max_chunk_chars, invalid, temp_dir):
    """Adds the writer's steps to `pipeline`. `processor_args`:
    (processor class, config, vocabulary file, do_lower_case, number of shards)."""
    indexes = (pipeline
               | "InputFiles" >> beam.Create(list(enumerate(files)))
               | "SpreadFiles" >> beam.Reshuffle()
               | "ScanFiles" >> beam.ParDo(ScanFile(invalid, max_chunk_chars)))
    all_indexes = indexes | "GatherIndexes" >> beam.combiners.ToList()
    shards = (all_indexes
              | "PlanBlocks" >> beam.FlatMap(lambda found: corpus_index.plan_blocks(found, documents_per_chunk))
              | "SpreadBlocks" >> beam.Reshuffle()
              | "WriteChunks" >> beam.ParDo(WriteChunks(processor_args, invalid, max_chunk_chars, temp_dir))
              | "GroupByShard" >> beam.GroupByKey()
              | "WriteShards" >> beam.ParDo(WriteShard(temp_dir)))
    _ = (shards
         | "GatherShards" >> beam.combiners.ToList()
         | "Finalize" >> beam.Map(finalize, beam.pvalue.AsSingleton(all_indexes), output_files, family, settings,
                                  temp_dir))


class _Progress:
    """A worker's progress line every _PROGRESS_SECONDS."""

    def __init__(self):
        self.start = self.last = time.time()
        self.chunks = self.documents = self.instances = 0

    def update(self, counts):
        self.chunks += 1
        self.documents += counts.get("documents", 0)
        self.instances += counts.get("instances", 0)
        now = time.time()
        if now - self.last >= _PROGRESS_SECONDS:
            self.last = now
            logging.info("this worker: %d chunks, %d documents -> %d instances (%.0f instances/s)", self.chunks,
                         self.documents, self.instances, self.instances / (now - self.start))
