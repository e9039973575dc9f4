"""tf.data input for GPT pretraining from the records of
`create_pretraining_data.py --model=gpt`: batches of `input_ids` and `input_mask`
(int32 [batch, max_seq_length]).

The records are checked before reading starts: their metadata, where they have
it (`records_metadata`), must name GPT records of `max_seq_length`, and each
file's first record must hold exactly GPT's two features of that width, so
BERT's records (which also have `input_ids` and `input_mask`) or another
length fail at set-up with both values named.
"""

import tensorflow as tf

from data.pretraining.corpus_reader import expand_input_files
from data.pretraining.dataset import files_with_records, first_record_features, record_batches
from data.pretraining.records_metadata import RecordLayoutError, check_settings
from families.gpt.pretraining.records import feature_layout


def check_records(files, max_seq_length):
    """Raises RecordLayoutError naming the file, the setting and both values
    when `files` are not GPT records of `max_seq_length` tokens."""
    check_settings(files, "gpt", {"max_seq_length": (max_seq_length, "--max_seq_length")})
    layout = feature_layout(max_seq_length)
    for path in files:
        features = first_record_features(path)
        if set(features) != set(layout):
            raise RecordLayoutError(
                f"{path}: features {sorted(features)}, expected {sorted(layout)}: not GPT pretraining "
                f"records (create_gpt_pretraining_data.py)?")
        for name, (width, _) in layout.items():
            values = features[name].int64_list.value
            if len(values) != width:
                raise RecordLayoutError(f"{path}: feature {name!r} has {len(values)} int64 values, but "
                                        f"--max_seq_length={max_seq_length}")


def gpt_pretraining_dataset(input_files, batch_size, max_seq_length, shuffle=False, seed=12345, repeat=False,
                            shuffle_buffer=10_000, drop_remainder=False):
    """Batched {input_ids, input_mask} from comma-separated files or globs:
    in order, or shuffled (files, then windows) anew each pass.

    Example:
    >>> dataset = gpt_pretraining_dataset("out/gpt-*", 64, 512, shuffle=True, repeat=True)
    >>> next(iter(dataset))["input_ids"].shape
    TensorShape([64, 512])
    """
    files = files_with_records(expand_input_files(input_files))
    check_records(files, max_seq_length)
    spec = {name: tf.io.FixedLenFeature([width], tf.int64)
            for name, (width, _) in feature_layout(max_seq_length).items()}
    return record_batches(files, spec, batch_size, shuffle, seed, repeat, shuffle_buffer,
                          drop_remainder).prefetch(tf.data.AUTOTUNE)
