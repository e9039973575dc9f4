"""Sentence (pair) classification / regression as a TF Serving SavedModel.

Signatures (each batched; `saved_model_cli show --all` lists them):

- `serving_default(text_a)`, or `(text_a, text_b)` for pair tasks: raw
  strings, tokenized and packed in the graph exactly as in training.
- `serve_examples(examples)`: serialized `tf.Example`s with the original
  `run_classifier.py` features `input_ids`, `input_mask`, `segment_ids`
  (int64, `max_seq_length` each), as its estimator export parsed them (a
  family with other encoder inputs: each under its own name, flattened).
- `serve_ids(...)`: packed ids, the encoder inputs its family declares (BERT:
  `input_word_ids`, `input_mask`, `input_type_ids`).

Ids outside their table (`input_vocab_sizes` of the encoder config: BERT's
word and type ids, XLNet's and GPT's word ids, ELMo's character ids) make
`serve_examples` and `serve_ids` fail with an InvalidArgument error naming the
input and its valid range, instead of reading another token's row.

A similarity model of a family that encodes such pairs in both orders
(`both_orders`: GPT on STS-B, MRPC, QQP) packs each request's pair as (A, B)
and as (B, A), as in training: `serving_default` is then symmetric in its two
texts, and `serve_examples` / `serve_ids` take both orders, [batch, 2,
max_seq_length] (flattened in a `tf.Example`).

Outputs: classification -> `label_ids` int32 [batch], `label_names` string
[batch], `probabilities` float32 [batch, classes]; regression -> `score`
float32 [batch]. Text without any token (empty, whitespace or control
characters only) is classified as its family's special tokens alone are
("[CLS] [SEP]" for BERT); text longer than `max_seq_length` pieces is cut as
in training.
"""

import numpy as np
import tensorflow as tf

from data.text.text_side import TextPacker
from export.serving_module import ServingModule, checked_ids, ids_specs, text_spec
from tasks.classification.features import input_shapes, record_name
WARMUP_TEXTS = (("The quick brown fox jumps over the lazy dog.", "A fox jumped."),
                ("", "Nothing to compare."))


def classifier_outputs(logits, label_names):
    """Named outputs from logits [batch, classes] (one column for regression)."""
    if label_names is None:
        return {"score": logits[:, 0]}
    label_ids = tf.argmax(logits, axis=-1, output_type=tf.int32)
    return {"label_ids": label_ids,
            "label_names": tf.gather(tf.constant(label_names, tf.string), label_ids),
            "probabilities": tf.nn.softmax(logits, axis=-1)}


def save_classification(export_dir, model, text_side, max_seq_length, label_list=None,
                        paired=False, both_orders=False):
    """Writes the classifier SavedModel. `model` maps encoder inputs to {"logits"};
    `text_side` is its family's `TextSide`; `label_list` None means regression;
    `paired` adds `text_b`; `both_orders` packs each pair in both orders
    ([batch, 2, seq] inputs, as `SequenceClassifier(both_orders=True)` takes)."""
    packer = TextPacker(text_side, max_seq_length)
    shapes = input_shapes(text_side, max_seq_length, both_orders)
    label_names = None if label_list is None else [str(label) for label in label_list]

    # Every signature calls `classify`: the model is traced once, not once per signature;
    # ids packed in the graph are in range by construction and skip the check.
    @tf.function(input_signature=[ids_specs(model)])
    def classify(inputs):
        return classifier_outputs(model(inputs, training=False)["logits"], label_names)

    @tf.function(input_signature=[ids_specs(model)])
    def serve_ids(inputs):
        return classify(checked_ids(model, inputs))

    if paired:
        @tf.function(input_signature=[text_spec("text_a"), text_spec("text_b")])
        def serving_default(text_a, text_b):
            if both_orders:
                return classify(packer.pack_both_orders(text_a, text_b))
            return classify(packer.pack(text_a, text_b))
    else:
        @tf.function(input_signature=[text_spec("text_a")])
        def serving_default(text_a):
            return classify(packer.pack(text_a))

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="examples")])
    def serve_examples(examples):
        parsed = tf.io.parse_example(examples, {
            record_name(name): tf.io.FixedLenFeature(shape, tf.int64)
            for name, shape in shapes.items()})
        parsed = checked_ids(model, {name: parsed[record_name(name)] for name in shapes})  # int64: before the cast
        return classify({name: tf.cast(value, tf.int32) for name, value in parsed.items()})

    module = ServingModule(model, text_side, packer.tokenizer)
    signatures = {"serving_default": serving_default, "serve_examples": serve_examples,
                  "serve_ids": serve_ids}
    warmup = _warmup_requests(text_side, max_seq_length, paired, both_orders)
    return module.save(export_dir, signatures, warmup)


def example_protos(inputs):
    """Serialized `tf.Example`s of packed encoder inputs, the original's feature names."""
    protos = []
    for row in range(len(inputs["input_mask"])):
        feature = {record_name(name): tf.train.Feature(int64_list=tf.train.Int64List(
            value=values[row].ravel())) for name, values in inputs.items()}
        protos.append(tf.train.Example(features=tf.train.Features(feature=feature))
                      .SerializeToString())
    return np.array(protos, dtype=object)


def _warmup_requests(text_side, max_seq_length, paired, both_orders):
    texts_a = np.array([a for a, _ in WARMUP_TEXTS], dtype=object)
    texts_b = np.array([b for _, b in WARMUP_TEXTS], dtype=object) if paired else None
    text_inputs = {"text_a": texts_a, **({"text_b": texts_b} if paired else {})}
    ids = text_side.encode_texts(list(texts_a), None if texts_b is None else list(texts_b),
                                 max_seq_length)
    if both_orders:
        swapped = text_side.encode_texts(list(texts_b), list(texts_a), max_seq_length)
        ids = {name: np.stack([ids[name], swapped[name]], axis=1) for name in ids}
    return [("serving_default", text_inputs), ("serve_examples", {"examples": example_protos(ids)}),
            ("serve_ids", ids)]


def serve(export_dir, model, meta):
    """The classifier SavedModel of a fine-tuning run's `ExportMeta` (no
    `label_list`: a regression's score)."""
    return save_classification(export_dir, model, meta.text_side(), meta.max_seq_length,
                               meta.label_list, meta.paired, meta.both_orders)
