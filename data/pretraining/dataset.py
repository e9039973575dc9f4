"""tf.data input for pretraining from TFRecords in the google-research
layout (ours or the original script's): batches of int32 features (float32
masked_lm_weights), deterministic for a seed, optionally re-masked every
epoch.

Every file's first record is checked against the expected layout before
reading starts, and the records' metadata (`records_metadata`) where they
have it against the settings, so a file written with other settings fails
with an error naming the file, the feature and the flag, not deep inside
training. An empty file (a shard older writers left without records) is
skipped with a warning; a file the metadata beside it does not list (a shard
of an earlier write, a temporary file of a killed one) is refused
(`records_metadata.check_listed`).
"""

import tensorflow as tf
from absl import logging

from data.pretraining import features as F
from data.pretraining.corpus_reader import expand_input_files
from data.pretraining.records_metadata import RecordLayoutError, check_listed, check_settings


def feature_spec(max_seq_length, max_predictions_per_seq, next_sentence_labels=True,
                 max_sequences_per_pack=0):
    layout = F.feature_layout(max_seq_length, max_predictions_per_seq, next_sentence_labels,
                              max_sequences_per_pack)
    return {
        name: tf.io.FixedLenFeature([width], tf.float32 if kind == F.FLOAT else tf.int64)
        for name, (width, kind) in layout.items()
    }


def files_with_records(files):
    """`files` without those that hold no record, each skipped with a warning;
    raises RecordLayoutError when none is left, or when the metadata beside
    them does not list some (`check_listed`)."""
    check_listed(files)
    kept = []
    for path in files:
        if next(iter(tf.data.TFRecordDataset(path).take(1)), None) is None:
            logging.warning("%s: no records, skipped", path)
        else:
            kept.append(path)
    if not kept:
        raise RecordLayoutError(f"no records in {', '.join(files)}")
    return kept


def first_record_features(path):
    """The features of the first record of `path` ({name: tf.train.Feature});
    raises RecordLayoutError when it has none."""
    first = next(iter(tf.data.TFRecordDataset(path).take(1)), None)
    if first is None:
        raise RecordLayoutError(f"{path}: no records")
    return tf.train.Example.FromString(first.numpy()).features.feature


def numbered_records(files, shuffle_files=False, seed=12345, repeat=False):
    """(number in the run, serialized record) of every record of `files`, file
    after file in stream order (their order shuffled each pass with
    `shuffle_files`), numbers counting on across passes: what readers of
    records written in batch order (XLNet's, ELMo's) start from."""
    dataset = tf.data.Dataset.from_tensor_slices(files)
    if shuffle_files:
        dataset = dataset.shuffle(len(files), seed=seed, reshuffle_each_iteration=True)
    if repeat:
        dataset = dataset.repeat()
    return dataset.flat_map(tf.data.TFRecordDataset).enumerate()


def check_first_record(path, max_seq_length, max_predictions_per_seq, next_sentence_labels=True,
                       max_sequences_per_pack=0):
    """Raises RecordLayoutError naming the feature when the first record of
    `path` lacks a feature or has one of another kind or length."""
    features = first_record_features(path)
    layout = F.feature_layout(max_seq_length, max_predictions_per_seq, next_sentence_labels,
                              max_sequences_per_pack)
    hints = {F.INPUT_IDS: f"--max_seq_length={max_seq_length}",
             F.MASKED_LM_IDS: f"--max_predictions_per_seq={max_predictions_per_seq}",
             F.NEXT_SENTENCE_LABELS: f"--max_sequences_per_pack={max_sequences_per_pack}"}
    hints.update({F.INPUT_MASK: hints[F.INPUT_IDS], F.SEGMENT_IDS: hints[F.INPUT_IDS],
                  F.MASKED_LM_POSITIONS: hints[F.MASKED_LM_IDS],
                  F.MASKED_LM_WEIGHTS: hints[F.MASKED_LM_IDS]})
    if max_sequences_per_pack:
        hints.update({F.NEXT_SENTENCE_POSITIONS: hints[F.NEXT_SENTENCE_LABELS],
                      F.NEXT_SENTENCE_WEIGHTS: hints[F.NEXT_SENTENCE_LABELS]})
    else:
        hints[F.NEXT_SENTENCE_LABELS] = "packed rows? pass --max_sequences_per_pack"
    for name, (width, kind) in layout.items():
        if name not in features:
            hint = (" (packed rows come from pack_pretraining_data.py)"
                    if name == F.NEXT_SENTENCE_POSITIONS else "")
            raise RecordLayoutError(
                f"{path}: feature {name!r} is missing{hint} (present: {sorted(features)})")
        present_kind = features[name].WhichOneof("kind")
        expected_kind = "float_list" if kind == F.FLOAT else "int64_list"
        if present_kind != expected_kind:
            raise RecordLayoutError(f"{path}: feature {name!r} is a {present_kind}, expected {expected_kind}")
        length = len(getattr(features[name], expected_kind).value)
        if length != width:
            hint = f" ({hints[name]})" if name in hints else ""
            raise RecordLayoutError(f"{path}: feature {name!r} has {length} values, expected {width}{hint}")


def check_record_ids(path, vocab_size, config_source, num_records=256,
                     id_features=(F.INPUT_IDS, F.MASKED_LM_IDS), vocab_size_field="vocab_size"):
    """Raises RecordLayoutError naming the file and the config when one of
    the first `num_records` records of `path` holds a token id (in
    `id_features`) that the config's `vocab_size` (its field
    `vocab_size_field`: XLNet's is `n_token`) has no embedding for (records
    made with another vocabulary), which would otherwise fail inside the
    first training step."""
    spec = {name: tf.io.VarLenFeature(tf.int64) for name in id_features}
    for records in tf.data.TFRecordDataset(path).take(num_records).batch(num_records):
        parsed = tf.io.parse_example(records, spec)
        largest = max(int(tf.reduce_max(tf.concat([[0], parsed[name].values], 0))) for name in spec)
        if largest >= vocab_size:
            raise RecordLayoutError(
                f"{path}: token id {largest} but {config_source} has {vocab_size_field}={vocab_size}: "
                f"records made with another vocabulary?")


def pretraining_dataset(
    input_files,
    batch_size,
    max_seq_length=128,
    max_predictions_per_seq=20,
    next_sentence_labels=True,
    shuffle=True,
    seed=12345,
    repeat=False,
    shuffle_buffer=10_000,
    drop_remainder=False,
    dynamic_masker=None,
    max_sequences_per_pack=0,
):
    """Batched feature dicts from pretraining TFRecords.

    `input_files`: comma-separated files or globs (or a list). With
    `dynamic_masker` (a `tf_masking.DynamicMasker`) the records' masks are
    replaced by new ones drawn from (seed, batch number), so every epoch
    sees different masks. `max_sequences_per_pack` reads packed rows
    (`pack_pretraining_data.py`).

    Example:
    >>> dataset = pretraining_dataset("out/*.tfrecord", batch_size=32, repeat=True)
    >>> next(iter(dataset))["input_ids"].shape
    TensorShape([32, 128])
    """
    if max_sequences_per_pack < 0:
        raise ValueError(f"max_sequences_per_pack must be 0 (unpacked) or more, got {max_sequences_per_pack}")
    if dynamic_masker is not None and max_sequences_per_pack:
        raise ValueError("dynamic masking does not apply to packed records")
    files = files_with_records(expand_input_files(input_files))
    check_settings(files, "bert", {
        "max_seq_length": (max_seq_length, "--max_seq_length"),
        "max_predictions_per_seq": (max_predictions_per_seq, "--max_predictions_per_seq"),
        "next_sentence_labels": (next_sentence_labels, "next_sentence_labels (--objective)"),
        "max_sequences_per_pack": (max_sequences_per_pack, "--max_sequences_per_pack")})
    for path in files:
        check_first_record(path, max_seq_length, max_predictions_per_seq, next_sentence_labels,
                           max_sequences_per_pack)
    spec = feature_spec(max_seq_length, max_predictions_per_seq, next_sentence_labels,
                        max_sequences_per_pack)
    dataset = record_batches(files, spec, batch_size, shuffle, seed, repeat, shuffle_buffer, drop_remainder)
    if dynamic_masker is not None:
        dataset = dataset.enumerate().map(
            lambda index, features: dynamic_masker(features, tf.stack([tf.constant(seed, tf.int64), index])),
            num_parallel_calls=tf.data.AUTOTUNE,
        )
    return dataset.prefetch(tf.data.AUTOTUNE)


def record_batches(files, spec, batch_size, shuffle, seed, repeat, shuffle_buffer, drop_remainder):
    """Batches of parsed records (int32, float32 kept) of `files`: in order, or
    with `shuffle` the files and then the records shuffled from `seed`, anew
    each pass; with `repeat` endlessly."""
    dataset = tf.data.Dataset.from_tensor_slices(files)
    if shuffle:
        dataset = dataset.shuffle(len(files), seed=seed, reshuffle_each_iteration=True)
    if repeat:
        dataset = dataset.repeat()
    dataset = dataset.interleave(
        tf.data.TFRecordDataset,
        cycle_length=min(len(files), 8),
        num_parallel_calls=tf.data.AUTOTUNE,
        deterministic=True,
    )
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer, seed=seed, reshuffle_each_iteration=True)
    dataset = dataset.batch(batch_size, drop_remainder=drop_remainder)
    return dataset.map(lambda records: _parse(records, spec), num_parallel_calls=tf.data.AUTOTUNE)


def _parse(records, spec):
    features = tf.io.parse_example(records, spec)
    return {name: value if value.dtype == tf.float32 else tf.cast(value, tf.int32) for name, value in features.items()}
