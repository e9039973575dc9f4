"""Packs pretraining TFRecords (from `create_pretraining_data.py`, ours or the
original's) into rows that hold several instances each, for
`run_pretraining.py --max_sequences_per_pack`.

    python pack_pretraining_data.py --input_file=data/seq512-*.tfrecord \\
        --output_file=data/packed512.tfrecord --max_seq_length=512 \\
        --max_predictions_per_seq=80 --max_sequences_per_pack=3

Instances are packed within windows of `--window` records read in file order
(`families.bert.pretraining.sequence_packing`); each window's rows are shuffled, so a row's length
does not follow from its place in the file. The output is written atomically
under the data writers' lock, with the records' metadata beside it, replacing
what an earlier write of its name left (`data.pretraining.output_names`), and
the log gives the padding share before and after.
"""

import sys

import numpy as np
import tensorflow as tf
from absl import app, flags, logging

from data.pretraining import features as F
from data.pretraining.corpus_reader import CorpusError, expand_input_files
from data.pretraining.dataset import check_first_record, feature_spec, files_with_records
from data.pretraining.output_names import leftovers
from data.pretraining.ragged_bytes import RaggedBytes
from data.pretraining.records_metadata import (RecordLayoutError, check_settings, read_metadata, remove_metadata,
                                               write_metadata)
from families.bert.pretraining.sequence_packing import pack_lengths, pack_rows
from data.pretraining.tfrecord_writer import frame_records
from data.pretraining.writer import locked_outputs, remove_files
from utils.files import atomic_output
from utils.output_dir_lock import OutputDirError


def _windows(files, max_seq_length, max_predictions_per_seq, next_sentence_labels, window):
    spec = feature_spec(max_seq_length, max_predictions_per_seq, next_sentence_labels)
    dataset = tf.data.TFRecordDataset(files).batch(window)
    for records in dataset.map(lambda r: tf.io.parse_example(r, spec)):
        yield {name: value.numpy() for name, value in records.items()}


def _example(row, index):
    feature = {}
    for name, values in row.items():
        values = values[index]
        if values.dtype == np.float32:
            feature[name] = tf.train.Feature(float_list=tf.train.FloatList(value=values))
        else:
            feature[name] = tf.train.Feature(int64_list=tf.train.Int64List(value=values))
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def _framed(records):
    """TFRecord file bytes of serialized records."""
    lengths = np.array([len(r) for r in records])
    present = np.arange(lengths.max()) < lengths[:, None]
    values = np.zeros(present.shape, np.uint8)
    values[present] = np.frombuffer(b"".join(records), np.uint8)
    return frame_records(RaggedBytes(values, present)).flat().tobytes()


def pack_pretraining_files(input_files, output_file, max_seq_length, max_predictions_per_seq,
                           max_sequences_per_pack=3, next_sentence_labels=True, window=100_000,
                           seed=12345):
    """Writes the packed rows to `output_file`; returns counts and padding shares."""
    files = files_with_records(expand_input_files(input_files))
    check_settings(files, "bert", {
        "max_seq_length": (max_seq_length, "--max_seq_length"),
        "max_predictions_per_seq": (max_predictions_per_seq, "--max_predictions_per_seq"),
        "next_sentence_labels": (next_sentence_labels, "--next_sentence_labels")})
    for path in files:
        check_first_record(path, max_seq_length, max_predictions_per_seq, next_sentence_labels)
    rng = np.random.default_rng(seed)
    instances, rows, tokens = 0, 0, 0
    with locked_outputs([output_file]):
        temporary, earlier = leftovers([output_file])
        remove_files(temporary)
        with atomic_output(output_file, "wb") as out:
            for records in _windows(files, max_seq_length, max_predictions_per_seq,
                                    next_sentence_labels, window):
                lengths = records[F.INPUT_MASK].sum(axis=1)
                groups = pack_lengths(lengths, max_seq_length, max_sequences_per_pack,
                                      (records[F.MASKED_LM_WEIGHTS] > 0).sum(axis=1), max_predictions_per_seq)
                packed = pack_rows(records, groups, max_seq_length, max_predictions_per_seq,
                                   max_sequences_per_pack)
                out.write(_framed([_example(packed, i) for i in rng.permutation(len(groups))]))
                instances, rows, tokens = instances + len(lengths), rows + len(groups), tokens + lengths.sum()
                logging.info("%d instances -> %d rows", instances, rows)
            remove_metadata([output_file])
        remove_files(earlier)
        settings = {"max_seq_length": max_seq_length, "max_predictions_per_seq": max_predictions_per_seq,
                    "next_sentence_labels": next_sentence_labels,
                    "max_sequences_per_pack": max_sequences_per_pack, **_input_vocab_size(files)}
        write_metadata([output_file], "bert", settings, [rows])
    return {"instances": instances, "rows": rows,
            "padding_share_before": 1.0 - tokens / (instances * max_seq_length),
            "padding_share_after": 1.0 - tokens / (rows * max_seq_length)}


def _input_vocab_size(files):
    """{"vocab_size": the largest of the inputs'} when every input's metadata has one, else {}."""
    sizes = [(read_metadata(path) or {}).get("settings", {}).get("vocab_size") for path in files]
    return {} if None in sizes else {"vocab_size": max(sizes)}


FLAGS = flags.FLAGS


def define_flags():
    flags.DEFINE_string("input_file", None, "Pretraining TFRecords: comma-separated files or globs.")
    flags.DEFINE_string("output_file", None, "The packed TFRecord file.")
    flags.DEFINE_integer("max_seq_length", 128, "Sequence length of the records and the rows.")
    flags.DEFINE_integer("max_predictions_per_seq", 20, "Masked-LM predictions per instance.")
    flags.DEFINE_integer("max_sequences_per_pack", 3, "Most instances in one row.")
    flags.DEFINE_bool("next_sentence_labels", True, "The records carry next_sentence_labels.")
    flags.DEFINE_integer("window", 100_000, "Records packed together (memory grows with it).")
    flags.DEFINE_integer("random_seed", 12345, "Seed of the row order.")


def main(argv):
    del argv
    for name in ("input_file", "output_file"):
        if not FLAGS[name].value:
            raise app.UsageError(f"--{name} is required.")
    try:
        stats = pack_pretraining_files(
            FLAGS.input_file, FLAGS.output_file, FLAGS.max_seq_length, FLAGS.max_predictions_per_seq,
            FLAGS.max_sequences_per_pack, FLAGS.next_sentence_labels, FLAGS.window, FLAGS.random_seed)
    except (CorpusError, OutputDirError, RecordLayoutError) as e:
        sys.exit(f"error: {e}")
    logging.info("%d instances in %d rows; padding %.1f%% -> %.1f%% of tokens", stats["instances"],
                 stats["rows"], 100 * stats["padding_share_before"], 100 * stats["padding_share_after"])


if __name__ == "__main__":
    define_flags()
    app.run(main)
