"""Small synthetic pretraining TFRecords (original feature names) and a tiny config."""

import numpy as np
import tensorflow as tf

from tests.tiny_config import TINY_CONFIG

# Records draw ids from a 100-token vocabulary.
TINY = TINY_CONFIG.replace(vocab_size=100)


def _int(values):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=[int(v) for v in values]))


def _float(values):
    return tf.train.Feature(float_list=tf.train.FloatList(value=[float(v) for v in values]))


def make_example(rng, seq_length, predictions, vocab_size=100, nsp=True, skip=(), widths=None,
                 min_length=None):
    """One random but learnable record: masked ids copy a neighbouring token."""
    widths = widths or {}
    length = int(rng.integers(min_length or seq_length // 2, seq_length + 1))
    ids = np.zeros(seq_length, np.int64)
    ids[:length] = rng.integers(5, vocab_size, length)
    mask = (np.arange(seq_length) < length).astype(np.int64)
    segments = (np.arange(seq_length) >= length // 2).astype(np.int64) * mask
    count = int(rng.integers(1, predictions + 1))
    positions = np.zeros(predictions, np.int64)
    positions[:count] = np.sort(rng.choice(np.arange(1, length), count, replace=False))
    labels = np.zeros(predictions, np.int64)
    labels[:count] = ids[positions[:count]]
    ids[positions[:count]] = 3  # [MASK]
    weights = (np.arange(predictions) < count).astype(np.float32)
    features = {"input_ids": _int(ids), "input_mask": _int(mask), "segment_ids": _int(segments),
                "masked_lm_positions": _int(positions), "masked_lm_ids": _int(labels),
                "masked_lm_weights": _float(weights)}
    if nsp:
        features["next_sentence_labels"] = _int([rng.integers(0, 2)])
    for name, width in widths.items():
        feature = features[name]
        kind = "float_list" if name == "masked_lm_weights" else "int64_list"
        values = list(getattr(feature, kind).value)[:width]
        features[name] = (_float if kind == "float_list" else _int)(values + [0] * (width - len(values)))
    for name in skip:
        features.pop(name)
    return tf.train.Example(features=tf.train.Features(feature=features))


def write_records(path, count=64, seq_length=16, predictions=4, seed=0, **kwargs):
    rng = np.random.default_rng(seed)
    with tf.io.TFRecordWriter(str(path)) as writer:
        for _ in range(count):
            writer.write(make_example(rng, seq_length, predictions, **kwargs).SerializeToString())
    return str(path)
