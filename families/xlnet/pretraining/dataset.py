"""tf.data input for XLNet pretraining: records of `create_pretraining_data.py --model=xlnet`
(or the original's) read in order, each permuted as it is read.

Records are read file after file in stream order, as the original does (no
record-level shuffle), so with a batch size of the writer's `bsz_per_host`
row k of each batch continues row k of the batch before, and with `bi_data`
the second half of each batch is the backward rows. Record n of the run gets
its permutation from (seed, n), so it differs every epoch, and a resumed
iterator (checkpointed by the trainer) draws what it would have drawn.
Empty files are skipped with a warning; the records' metadata, where they have
it, must agree with `seq_len`, `reuse_len` and `num_predict`.
"""

import tensorflow as tf

from families.xlnet.pretraining import features as X
from data.pretraining.corpus_reader import expand_input_files
from data.pretraining.dataset import files_with_records, first_record_features, numbered_records
from data.pretraining.records_metadata import RecordLayoutError, check_settings
from families.xlnet.pretraining.permutation import Permuter


def check_first_record(path, seq_len):
    """Raises RecordLayoutError naming the file and feature when the first
    record of `path` is not an XLNet record of `seq_len` tokens."""
    features = first_record_features(path)
    for name, (width, _) in X.feature_layout(seq_len).items():
        if name == X.TARGET:
            continue  # not read: targets are the tokens themselves
        if name not in features:
            raise RecordLayoutError(f"{path}: feature {name!r} is missing (present: {sorted(features)}): "
                                    f"not XLNet pretraining records?")
        length = len(features[name].int64_list.value)
        if length != width:
            hint = f" (--seq_len={seq_len})" if width == seq_len else ""
            raise RecordLayoutError(f"{path}: feature {name!r} has {length} int64 values, expected {width}{hint}")


def _spec(seq_len):
    return {name: tf.io.FixedLenFeature([width], tf.int64)
            for name, (width, _) in X.feature_layout(seq_len).items() if name != X.TARGET}


def xlnet_pretraining_dataset(input_files, batch_size, seq_len, reuse_len, perm_size, num_predict,
                              seed=12345, shuffle_files=False, repeat=False, drop_remainder=False):
    """Batches of `Permuter` features from comma-separated files or globs.

    Example:
    >>> dataset = xlnet_pretraining_dataset("out/xlnet-*", 32, 512, 256, 256, 85, repeat=True)
    >>> next(iter(dataset))["perm_mask"].shape
    TensorShape([32, 512, 512])
    """
    permute = Permuter(seq_len, reuse_len, perm_size, num_predict)
    files = files_with_records(expand_input_files(input_files))
    check_settings(files, "xlnet", {"seq_len": (seq_len, "--seq_len"), "reuse_len": (reuse_len, "--reuse_len"),
                                    "num_predict": (num_predict, "--num_predict")})
    for path in files:
        check_first_record(path, seq_len)
    spec = _spec(seq_len)
    dataset = numbered_records(files, shuffle_files, seed, repeat).map(
        lambda index, record: permute(tf.io.parse_single_example(record, spec),
                                      tf.stack([tf.constant(seed, tf.int64), index])),
        num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
    return dataset.batch(batch_size, drop_remainder=drop_remainder).prefetch(tf.data.AUTOTUNE)
