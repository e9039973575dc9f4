"""tf.data input for ELMo pretraining: records of `create_elmo_pretraining_data.py`
read in order, batched as written, with the character ids of their words.

Records are read file after file in stream order (no record-level shuffle),
so with the writer's `batch_size` row r of each batch continues row r of the
batch before. Each record keeps its number in the run (`row_number`, counting
on across epochs), which seeds the sampled softmax of the slice it lands in.
Empty files are skipped with a warning; the records' metadata must agree with
`unroll_steps` and the vocabulary.
"""

import tensorflow as tf

from data.pretraining.corpus_reader import expand_input_files
from data.pretraining.dataset import files_with_records, first_record_features, numbered_records
from data.pretraining.records_metadata import RecordLayoutError, check_settings
from families.elmo.graph_characters import GraphCharacters
from families.elmo.pretraining import features as E

ROW_NUMBER = "row_number"


def check_first_record(path, unroll_steps):
    """Raises RecordLayoutError naming the file and feature when the first
    record of `path` is not an ELMo record of `unroll_steps` tokens."""
    features = first_record_features(path)
    for name, (width, kind) in E.feature_layout(unroll_steps).items():
        if name not in features:
            raise RecordLayoutError(f"{path}: feature {name!r} is missing (present: {sorted(features)}): "
                                    f"not ELMo pretraining records?")
        values = features[name].bytes_list.value if kind == "bytes" else features[name].int64_list.value
        if len(values) != width:
            raise RecordLayoutError(f"{path}: feature {name!r} has {len(values)} values, expected {width} "
                                    f"(--unroll_steps={unroll_steps})")


def _spec(unroll_steps):
    return {name: tf.io.FixedLenFeature([width], tf.string if kind == "bytes" else tf.int64)
            for name, (width, kind) in E.feature_layout(unroll_steps).items()}


class CharacterInputs:
    """Words [..., steps] -> character ids [..., steps, max_characters] as the
    original's vocabulary gives them at training (plus one, as our `CharCNN`
    takes them): `<S>` and `</S>` are the BOS and EOS tokens."""

    def __init__(self, max_characters):
        self.graph = GraphCharacters(max_characters)

    def __call__(self, words):
        chars = self.graph.word_char_ids(tf.reshape(words, [-1]))
        return tf.reshape(chars, tf.concat([tf.shape(words), [self.graph.max_characters]], 0))


def elmo_pretraining_dataset(input_files, batch_size, unroll_steps, vocab, max_characters=None,
                             shuffle_files=False, seed=12345, repeat=False, drop_remainder=False):
    """Batches of {token_ids, next_token_id, (tokens_characters,) and their
    `_reverse`, row_number}, int32 [batch, unroll_steps(, max_characters)]
    (row_number int64 [batch]); character ids only with `max_characters`
    (a character model).

    Example:
    >>> dataset = elmo_pretraining_dataset("out/elmo-*", 128, 20, vocab, max_characters=50, repeat=True)
    >>> next(iter(dataset))["tokens_characters"].shape
    TensorShape([128, 20, 50])
    """
    files = files_with_records(expand_input_files(input_files))
    check_settings(files, "elmo", {"unroll_steps": (unroll_steps, "--unroll_steps"),
                                   "vocab_sha1": (vocab.sha1, f"the sha1 of --vocab_file={vocab.path}")})
    for path in files:
        check_first_record(path, unroll_steps)
    spec = _spec(unroll_steps)
    characters = max_characters and CharacterInputs(max_characters)

    def features(row_numbers, records):
        batch = tf.io.parse_example(records, spec)
        out = {ROW_NUMBER: row_numbers}
        for _, suffix in E.DIRECTIONS:
            for name in (E.TOKEN_IDS, E.NEXT_TOKEN_ID):
                out[name + suffix] = tf.cast(batch[name + suffix], tf.int32)
            if characters:
                out[E.TOKENS_CHARACTERS + suffix] = characters(batch[E.TOKENS + suffix])
        return out

    dataset = numbered_records(files, shuffle_files, seed, repeat).batch(batch_size, drop_remainder=drop_remainder)
    return dataset.map(features, num_parallel_calls=tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE)
