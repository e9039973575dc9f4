"""What every pretraining-data command line shares: the choice of writer.

Without `--runner`, the local process pool writes (`writer`, `--num_workers`
processes). With `--runner=<Beam runner>`, the same chunks are written by an
Apache Beam pipeline on that runner (`beam_writer`), and every flag the
script does not define passes through to Beam (--project, --region,
--temp_location, --flink_master, --environment_type, ...). `--num_workers`
becomes the DirectRunner's `--direct_num_workers` (processes, with
`--direct_running_mode=multi_processing`), or the worker count of another
runner when given. A script defines its flags with `define_writer_flags`,
opts in with `app.run(main, flags_parser=parse_flags)` and writes with
`write_and_report`.
"""

import sys

from absl import flags, logging

from data.pretraining.corpus_reader import CorpusError
from data.pretraining.writer import output_paths, shard_lines, write_pretraining_data
from utils.output_dir_lock import OutputDirError

flags.DEFINE_string(
    "runner", None,
    "Write with an Apache Beam pipeline on this runner (DirectRunner, DataflowRunner, FlinkRunner, SparkRunner, "
    "PortableRunner, ...; needs requirements-beam.txt); flags this script does not define pass through to Beam. "
    "Without it the local process pool writes.")

FLAGS = flags.FLAGS
_LOCAL_RUNNERS = ("directrunner", "fnapirunner", "switchingdirectrunner")


def define_writer_flags(chunk_help):
    """The flags every pretraining-data command line takes, under the original
    scripts' names; `chunk_help` says what a chunk of documents is to this writer."""
    flags.DEFINE_string("input_file", None, "Input raw text file(s) or glob(s), comma-separated.")
    flags.DEFINE_string("output_file", None, "Output TFRecord file (or comma-separated list of files).")
    flags.DEFINE_integer("output_shards", 1, "Number of numbered output shards of --output_file.")
    flags.DEFINE_integer("num_workers", 1, "Worker processes (with --runner: Beam's workers).")
    flags.DEFINE_integer("documents_per_chunk", 2000, chunk_help)


def parse_flags(argv):
    """absl's flag parsing, leaving the flags this script does not define to
    Beam; they are an error without --runner."""
    try:
        rest = FLAGS(argv, known_only=True)
        if len(rest) > 1 and not FLAGS.runner:
            raise flags.Error(f"unknown arguments {' '.join(rest[1:])} (options for Beam need --runner)")
    except flags.Error as e:
        sys.exit(f"FATAL Flags parsing error: {e}\nPass --helpshort or --helpfull to see help on flags.")
    return rest


def write_and_report(make_config, vocab_file, do_lower_case, processor_class, beam_args, summary_lines,
                     errors=()):
    """Writes the records of the script's flags with the config `make_config()`
    and logs the records per shard and `summary_lines(counts)`; bad input (or
    one of `errors`) exits with an `error:` line. Returns the counts."""
    try:
        config = make_config()
        outputs = output_paths(FLAGS.output_file, FLAGS.output_shards)
        counts = _write(FLAGS.input_file, outputs, vocab_file, config, do_lower_case,
                       num_workers=FLAGS.num_workers, documents_per_chunk=FLAGS.documents_per_chunk,
                       processor_class=processor_class, beam_args=beam_args)
    except (CorpusError, OSError, OutputDirError, ValueError, *errors) as e:
        sys.exit(f"error: {e}")
    for line in shard_lines(outputs, counts["records_per_shard"]):
        logging.info("%s", line)
    if 0 in counts["records_per_shard"]:
        logging.warning("a chunk of --documents_per_chunk=%d documents may go whole to one shard (%d "
                        "documents here): a smaller --documents_per_chunk spreads the records over more "
                        "shards", FLAGS.documents_per_chunk, counts["documents"])
    for line in summary_lines(counts):
        logging.info("%s", line)
    return counts


def _write(input_files, output_files, vocab_file, config, do_lower_case, *, num_workers, documents_per_chunk,
           processor_class, beam_args=()):
    """The counts of writing with the local pool, or with Beam under --runner
    and `beam_args` (what `parse_flags` left, program name first)."""
    if not FLAGS.runner:
        return write_pretraining_data(input_files, output_files, vocab_file, config, do_lower_case, num_workers,
                                      documents_per_chunk, processor_class=processor_class)
    try:
        import apache_beam  # noqa: F401
    except ImportError:
        raise ValueError("--runner needs Apache Beam: pip install -r requirements-beam.txt") from None
    from data.pretraining.beam_writer import write_pretraining_data_beam

    return write_pretraining_data_beam(
        input_files, output_files, vocab_file, config, do_lower_case, documents_per_chunk,
        processor_class=processor_class,
        pipeline_args=pipeline_args(FLAGS.runner, num_workers, FLAGS["num_workers"].present, list(beam_args[1:])))


def pipeline_args(runner, num_workers, num_workers_given, args):
    """Beam's arguments: the runner, `args`, and the worker count."""
    args = [f"--runner={runner}", *args]
    given = {a.split("=")[0] for a in args}
    if runner.lower() in _LOCAL_RUNNERS or runner.lower() + "runner" in _LOCAL_RUNNERS:
        if "--direct_num_workers" not in given:
            args.append(f"--direct_num_workers={num_workers}")
        if num_workers > 1 and "--direct_running_mode" not in given:
            args.append("--direct_running_mode=multi_processing")
    elif num_workers_given:
        args.append(f"--num_workers={num_workers}")
    return args
