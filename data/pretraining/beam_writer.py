"""Writes pretraining data with an Apache Beam pipeline (`beam_pipeline`)
on any runner, and returns the local writer's summary counts, read from the
pipeline's metrics, so that a command line prints the same summary for both.

Example:
>>> counts = write_pretraining_data_beam(
...     "gs://bucket/corpus/*.txt", output_paths("gs://bucket/out/pretrain.tfrecord", 256), "gs://bucket/vocab.txt",
...     config, processor_class=ChunkProcessor,
...     pipeline_args=["--runner=DataflowRunner", "--project=p", "--region=r", "--temp_location=gs://bucket/tmp"])
"""

import collections
import json
import os
import time
import uuid

from absl import logging

from data.pretraining import corpus_reader
from data.pretraining.corpus_reader import MAX_CHUNK_CHARS, REPLACE, SKIP, CorpusError
from data.pretraining.output_names import output_name
from data.pretraining.records_metadata import metadata_path
from data.pretraining.writer import locked_outputs

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_LOGGED_BAD_LINES = 20


def write_pretraining_data_beam(input_files, output_files, vocab_file, config, do_lower_case=True,
                                documents_per_chunk=2000, *, processor_class, pipeline_args=(),
                                max_chunk_chars=MAX_CHUNK_CHARS):
    """Runs the pipeline with Beam's `pipeline_args` (`--runner=...` and its
    options) and returns the counts `writer.write_pretraining_data` returns for
    the same arguments; paths may be local or on any file system Beam reads
    (gs://, s3://, hdfs://). A corpus that yields no record is an error, and
    the earlier output is left as it was."""
    import apache_beam as beam
    from apache_beam.options.pipeline_options import PipelineOptions
    from apache_beam.runners.runner import PipelineState

    from data.pretraining import beam_pipeline

    files = corpus_reader.expand_input_files(input_files, match=_match)
    with beam_pipeline.local_copy(vocab_file) as local_vocab:
        processor = processor_class(config, local_vocab, do_lower_case, len(output_files))  # fails early
        settings = {name: vocab_file if value == local_vocab else value
                    for name, value in processor.metadata_settings().items()}
    directory, name = os.path.split(output_name(output_files[0]))
    temp_dir = os.path.join(directory, f".{name}.beam-{uuid.uuid4().hex[:12]}")
    _importable_by_local_workers()
    start = time.time()
    with locked_outputs(output_files):
        pipeline = beam.Pipeline(options=PipelineOptions(list(pipeline_args)))
        beam_pipeline.build_pipeline(
            pipeline, files, (processor_class, config, vocab_file, do_lower_case, len(output_files)), output_files,
            processor.family, settings, documents_per_chunk, max_chunk_chars,
            SKIP if processor.strict_utf8 else REPLACE, temp_dir)
        result = pipeline.run()
        state = result.wait_until_finish()
    if state != PipelineState.DONE:
        raise RuntimeError(f"the pipeline ended {state}")
    counts = metric_counts(result, beam_pipeline.NAMESPACE)
    logging.info("Beam metrics (%s): %s", beam_pipeline.NAMESPACE,
                 ", ".join(f"{name} {value}" for name, value in sorted(counts.items())))
    _log_bad_lines(output_files, beam_pipeline)
    if not counts["instances"]:
        raise CorpusError(
            f"{processor.no_output_reason(files)} ({counts['lines']} lines read); nothing written")
    counts = dict(counts)
    counts["records_per_shard"] = _records_per_shard(output_files, beam_pipeline)
    counts["seconds"] = time.time() - start
    return counts


def metric_counts(result, namespace):
    """The pipeline's counters in `namespace` as a Counter, by name."""
    from apache_beam.metrics.metric import MetricsFilter

    counts = collections.Counter()
    for counter in result.metrics().query(MetricsFilter().with_namespace(namespace))["counters"]:
        value = counter.committed if counter.committed is not None else counter.attempted
        counts[counter.key.metric.name] += value or 0
    return counts


def _match(pattern):
    if "://" not in pattern:
        return corpus_reader.local_match(pattern)
    from apache_beam.io.filesystem import BeamIOError
    from apache_beam.io.filesystems import FileSystems

    try:
        return sorted(m.path for m in FileSystems.match([pattern])[0].metadata_list)
    except BeamIOError:
        return []


def _importable_by_local_workers():
    """Worker processes that a local runner starts import the project's packages."""
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if _ROOT not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([_ROOT, *paths])


def _records_per_shard(output_files, beam_pipeline):
    records = {}
    for path in sorted({metadata_path(p) for p in output_files}):
        with beam_pipeline.open_file(path) as f:
            directory = os.path.dirname(path)
            for name, count in json.loads(f.read().decode("utf-8"))["records"].items():
                records[os.path.join(directory, name)] = count
    return [records.get(p, 0) for p in output_files]


def _log_bad_lines(output_files, beam_pipeline):
    from apache_beam.io.filesystems import FileSystems

    for path in sorted({beam_pipeline.bad_lines_path(p) for p in output_files}):
        if not FileSystems.exists(path):
            continue
        with beam_pipeline.open_file(path) as f:
            lines = f.read().decode("utf-8").splitlines()
        for line in lines[:_LOGGED_BAD_LINES]:
            logging.warning("%s", line)
        more = f" ({len(lines) - _LOGGED_BAD_LINES} more)" if len(lines) > _LOGGED_BAD_LINES else ""
        logging.warning("bad lines%s are listed in %s", more, path)
