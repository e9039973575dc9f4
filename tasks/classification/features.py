"""Classification examples -> packed ids -> TFRecord files, cached.

Each example becomes `max_seq_length` ids packed by its encoder family's text
side (BERT: `[CLS] A [SEP] (B [SEP])`), pairs truncated longest-first as in
the original (`data/text/text_side.py`). The
TFRecords hold each encoder input the text side packs, flattened, under the
original `run_classifier.py` names where it has them (`input_ids`,
`input_mask`, `segment_ids`; then `label_ids`, `is_real_example`) and under
its own name otherwise, plus `example_index`, the example's position in its
file, which keys predictions.
`label_ids` is a float for regression.

A similarity pair (`GlueReader.similarity`) of a family whose text side
encodes such pairs in both orders (`TextSide.similarity_in_both_orders`: GPT)
is packed twice, `pack(A, B)` then `pack(B, A)`: each input [2,
max_seq_length] (`both_orders`), flattened into its record.

A split is tokenized once: its file is named by a hash of the examples, the
vocabulary, the casing, `max_seq_length` and the label list, so a change to
any of them makes a new file and an unchanged run reuses the old one.
"""

import dataclasses
import hashlib
import os

import numpy as np
import tensorflow as tf
from absl import logging

from data.text.segments import stack_inputs
from data.text.text_side import as_text_side

FORMAT_VERSION = 1
_UNLABELLED = 0


@dataclasses.dataclass
class ClassifierFeatures:
    """Packed encoder inputs ({name: int32 [N, max_seq_length, ...]}, as the
    text side's `pack` names them) and labels [N] of one split."""

    inputs: dict  # [N, 2, max_seq_length, ...] with both orders
    label_ids: np.ndarray  # int32 class ids, or float32 scores for regression
    num_truncated: int

    def __len__(self):
        return len(self.label_ids)


def encode_examples(examples, text_side, max_seq_length, label_list, both_orders=False):
    """`ClassifierFeatures` of `examples`, packed by `text_side` (a `TextSide`,
    or a WordPiece `FullTokenizer` for BERT's); `label_list` None means
    regression. Unlabelled examples get label 0. `both_orders` packs each pair
    as (A, B) and (B, A), stacked before the sequence axis."""
    text_side = as_text_side(text_side)
    label_ids = {label: i for i, label in enumerate(label_list or ())}
    rows, labels, truncated = [], [], 0
    all_ids_b = iter(text_side.encode_batch([e.text_b for e in examples if e.text_b is not None]))
    for example, ids_a in zip(examples, text_side.encode_batch([e.text_a for e in examples])):
        ids_b = next(all_ids_b) if example.text_b is not None else None
        truncated += (len(ids_a) + len(ids_b or ()) + text_side.num_specials(ids_b)
                      > max_seq_length)
        row = text_side.pack(ids_a, ids_b, max_seq_length)
        if both_orders:
            swapped = text_side.pack(ids_b, ids_a, max_seq_length)
            row = {name: np.stack([row[name], swapped[name]]) for name in row}
        rows.append(row)
        if example.label is None:
            labels.append(_UNLABELLED)
        else:
            labels.append(example.label if label_list is None else label_ids[example.label])
    if rows:
        inputs = stack_inputs(rows)
    else:
        inputs = {name: np.zeros((0, *shape), np.int32)
                  for name, shape in input_shapes(text_side, max_seq_length, both_orders).items()}
    dtype = np.float32 if label_list is None else np.int32
    return ClassifierFeatures(inputs, np.asarray(labels, dtype), truncated)


def input_shapes(text_side, max_seq_length, both_orders=False):
    """{encoder input: shape of one example}: the text side's, with the axis of
    the two orders before the sequence when `both_orders`."""
    shapes = as_text_side(text_side).input_shapes(max_seq_length)
    return {name: (2, *shape) for name, shape in shapes.items()} if both_orders else shapes


def features_key(examples, vocab_file, do_lower_case, max_seq_length, label_list,
                 both_orders=False):
    """Hex digest naming the features of `examples` under these settings."""
    digest = hashlib.sha256()
    if vocab_file:  # None: a model without a vocabulary (ELMo's character biLM)
        with open(vocab_file, "rb") as f:
            digest.update(hashlib.sha256(f.read()).digest())
    settings = (FORMAT_VERSION, bool(do_lower_case), int(max_seq_length),
                None if label_list is None else list(label_list))
    digest.update(repr(settings + (("both_orders",) if both_orders else ())).encode())
    for e in examples:
        digest.update(repr((e.guid, e.text_a, e.text_b, e.label)).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


# The original run_classifier.py's names of the inputs it has.
_RECORD_NAMES = {"input_word_ids": "input_ids", "input_type_ids": "segment_ids"}


def record_name(name):
    """The tf.Example feature holding encoder input `name`."""
    return _RECORD_NAMES.get(name, name)


def _int64(values):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=values))


def write_tfrecord(path, features):
    """All of `features` as tf.Examples in one TFRecord file, written atomically."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.tmp-{os.getpid()}"
    regression = features.label_ids.dtype.kind == "f"
    try:
        with tf.io.TFRecordWriter(tmp) as writer:
            for i in range(len(features)):
                label = features.label_ids[i].item()
                example = tf.train.Example(features=tf.train.Features(feature={
                    **{record_name(name): _int64(values[i].ravel())
                       for name, values in features.inputs.items()},
                    "label_ids": (tf.train.Feature(float_list=tf.train.FloatList(value=[label]))
                                  if regression else _int64([label])),
                    "is_real_example": _int64([1]),
                    "example_index": _int64([i]),
                }))
                writer.write(example.SerializeToString())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def cached_tfrecord(cache_dir, name, examples, text_side, vocab_file, do_lower_case,
                    max_seq_length, label_list, both_orders=False):
    """Path of the TFRecord of `examples` in `cache_dir`, written if not there yet;
    `text_side` and `both_orders` as `encode_examples` takes them, over `vocab_file`."""
    key = features_key(examples, vocab_file, do_lower_case, max_seq_length, label_list,
                       both_orders)
    path = os.path.join(cache_dir, f"{name}-{max_seq_length}-{key[:16]}.tf_record")
    # An empty file is what an interrupted in-place write of an earlier version
    # left behind (writes are atomic now): rewrite it rather than reuse it.
    if os.path.isfile(path) and os.path.getsize(path) > 0:
        logging.info("Using cached features %s", path)
        return path
    features = encode_examples(examples, text_side, max_seq_length, label_list, both_orders)
    if features.num_truncated:
        logging.info("%s: %d of %d examples truncated to max_seq_length=%d", name,
                     features.num_truncated, len(features), max_seq_length)
    write_tfrecord(path, features)
    logging.info("Wrote %d examples to %s", len(features), path)
    return path


def parse_batch(serialized, input_shapes, regression):
    """A batch of serialized tf.Examples -> (encoder inputs, {label, example_index});
    `input_shapes` are `input_shapes(text_side, max_seq_length, both_orders)`."""
    spec = {record_name(name): tf.io.FixedLenFeature(shape, tf.int64)
            for name, shape in input_shapes.items()}
    spec.update({
        "label_ids": tf.io.FixedLenFeature([], tf.float32 if regression else tf.int64),
        "example_index": tf.io.FixedLenFeature([], tf.int64),
    })
    parsed = tf.io.parse_example(serialized, spec)
    features = {name: tf.cast(parsed[record_name(name)], tf.int32) for name in input_shapes}
    label = parsed["label_ids"] if regression else tf.cast(parsed["label_ids"], tf.int32)
    return features, {"label": label, "example_index": tf.cast(parsed["example_index"], tf.int32)}


def sort_by_length(features, labels):
    """A parsed batch reordered from its shortest example to its longest (the
    longer of its two orders)."""
    lengths = tf.reduce_sum(features["input_mask"], axis=-1)
    order = tf.argsort(lengths if lengths.shape.rank == 1 else tf.reduce_max(lengths, axis=1))
    return tf.nest.map_structure(lambda t: tf.gather(t, order), (features, labels))
