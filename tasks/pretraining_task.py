"""Pretraining task: masked LM + next sentence, or one of the paper's ablations.

Reads google-research pretraining TFRecords (`input_ids, input_mask,
segment_ids, masked_lm_positions, masked_lm_ids, masked_lm_weights,
next_sentence_labels`) and maps them to the model's input names. For `ltr`
the records carry every position's next token in `masked_lm_*` features
`max_seq_length` wide (`create_pretraining_data.py --objective=ltr`), so
`max_predictions_per_seq` does not apply.
"""

import glob

import keras
import tensorflow as tf
from absl import logging

from modeling.encoder import BertEncoder
from modeling.pretrainer import BertPretrainer
from tasks.base import Task
from tasks.pretraining_losses import masked_lm_losses, next_sentence_losses, pretraining_loss

_FEATURE_TO_INPUT = {"input_ids": "input_word_ids", "input_mask": "input_mask",
                     "segment_ids": "input_type_ids", "masked_lm_positions": "masked_lm_positions"}
_LABELS = ("masked_lm_ids", "masked_lm_weights", "next_sentence_labels")


class InputError(ValueError):
    """Pretraining records that cannot feed this model; the message says which and why."""


def expand_input_files(patterns):
    """Comma-separated glob patterns -> sorted file list; an empty match is an error."""
    files = []
    for pattern in (p.strip() for p in patterns.split(",")):
        if pattern:
            matched = tf.io.gfile.glob(pattern) if "://" in pattern else glob.glob(pattern)
            if not matched:
                raise InputError(f"--input_file pattern {pattern!r} matches no files")
            files.extend(sorted(matched))
    if not files:
        raise InputError("--input_file is empty")
    return files


class PretrainingTask(Task):
    """Builds the pretrainer, reads the records, computes losses and metrics.

    Example:
    >>> task = PretrainingTask(BertConfig.from_preset("bert_uncased_L-2_H-128_A-2"),
    ...                        "data/*.tfrecord", max_seq_length=128, max_predictions_per_seq=20)
    >>> Trainer(task, RunOptions(output_dir="/tmp/pretrain")).train(256, 10000, OptimizerConfig())
    """

    def __init__(self, config, input_file, max_seq_length, max_predictions_per_seq,
                 objective="mlm_nsp", init_checkpoint=None, shuffle_buffer=100, seed=12345):
        self.config = config
        self.input_files = expand_input_files(input_file)
        self.max_seq_length = max_seq_length
        self.max_predictions_per_seq = max_seq_length if objective == "ltr" else max_predictions_per_seq
        self.objective = objective
        self.init_checkpoint = init_checkpoint
        self.shuffle_buffer = shuffle_buffer
        self.seed = seed
        if max_seq_length > config.max_position_embeddings:
            raise InputError(f"max_seq_length {max_seq_length} exceeds the model's "
                             f"max_position_embeddings {config.max_position_embeddings}")
        self._feature_spec = self._spec()
        self._records_checked = False

    def _spec(self):
        widths = {"input_ids": self.max_seq_length, "input_mask": self.max_seq_length,
                  "segment_ids": self.max_seq_length,
                  "masked_lm_positions": self.max_predictions_per_seq,
                  "masked_lm_ids": self.max_predictions_per_seq,
                  "masked_lm_weights": self.max_predictions_per_seq}
        if self.objective == "mlm_nsp":
            widths["next_sentence_labels"] = 1
        return {name: tf.io.FixedLenFeature(
            [width], tf.float32 if name == "masked_lm_weights" else tf.int64)
            for name, width in widths.items()}

    def _check_first_record(self):
        """Names the feature and the flag when the records do not fit, before training starts."""
        path = self.input_files[0]
        try:
            first = next(iter(tf.data.TFRecordDataset(path).take(1)), None)
        except tf.errors.OpError as e:
            raise InputError(f"{path}: not a readable TFRecord file ({e.message})") from None
        if first is None:
            raise InputError(f"{path}: no records")
        try:
            example = tf.train.Example.FromString(first.numpy())
        except Exception as e:  # protobuf's DecodeError has no stable import path
            raise InputError(f"{path}: first record is not a tf.train.Example ({e})") from None
        features = example.features.feature
        flags = {self.max_seq_length: "--max_seq_length",
                 self.max_predictions_per_seq: "--max_predictions_per_seq"}
        for name, spec in self._feature_spec.items():
            if name not in features:
                raise InputError(f"{path}: feature {name!r} is missing (objective "
                                 f"{self.objective!r} needs {sorted(self._feature_spec)})")
            kind = "float_list" if spec.dtype == tf.float32 else "int64_list"
            values = getattr(features[name], kind).value
            if len(values) != spec.shape[0]:
                raise InputError(
                    f"{path}: feature {name!r} has {len(values)} {kind} values, expected "
                    f"{spec.shape[0]}" + (f" ({flags[spec.shape[0]]})" if spec.shape[0] in flags
                                          and name != "next_sentence_labels" else ""))

    def build_model(self):
        encoder = BertEncoder(self.config, causal_attention=self.objective == "ltr")
        return BertPretrainer(encoder, self.objective)

    def initialize(self, model):
        if self.init_checkpoint:
            from checkpoints.loader import load_into
            logging.info("%s", load_into(model, self.init_checkpoint).summary())

    def _decode(self, record):
        parsed = tf.io.parse_single_example(record, self._feature_spec)
        features = {_FEATURE_TO_INPUT[k]: tf.cast(parsed[k], tf.int32) for k in _FEATURE_TO_INPUT}
        labels = {k: parsed[k] for k in _LABELS if k in parsed}
        labels["masked_lm_ids"] = tf.cast(labels["masked_lm_ids"], tf.int32)
        if "next_sentence_labels" in labels:
            labels["next_sentence_labels"] = tf.cast(labels["next_sentence_labels"][0], tf.int32)
        return features, labels

    def build_dataset(self, split, batch_size, training, input_context=None):
        """Training repeats over shuffled files and records; evaluation reads
        every file once in order. Both drop the last partial batch, as the original."""
        if not self._records_checked:  # Not in __init__: the strategy must start TensorFlow.
            self._check_first_record()
            self._records_checked = True
        files = tf.data.Dataset.from_tensor_slices(self.input_files)
        if training:
            files = files.repeat().shuffle(len(self.input_files), seed=self.seed)
            records = files.interleave(tf.data.TFRecordDataset,
                                       cycle_length=min(4, len(self.input_files)),
                                       num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
            records = records.shuffle(self.shuffle_buffer, seed=self.seed)
        else:
            records = files.flat_map(tf.data.TFRecordDataset)
        return (records.map(self._decode, num_parallel_calls=tf.data.AUTOTUNE)
                .batch(batch_size, drop_remainder=True)
                .prefetch(tf.data.AUTOTUNE))

    def loss(self, labels, outputs):
        return pretraining_loss(outputs, labels)

    def build_metrics(self):
        metrics = [keras.metrics.SparseCategoricalAccuracy("masked_lm_accuracy"),
                   keras.metrics.Mean("masked_lm_loss")]
        if self.objective == "mlm_nsp":
            metrics += [keras.metrics.SparseCategoricalAccuracy("next_sentence_accuracy"),
                        keras.metrics.Mean("next_sentence_loss")]
        return metrics

    def update_metrics(self, metrics, labels, outputs):
        weights = labels["masked_lm_weights"]
        metrics[0].update_state(labels["masked_lm_ids"], outputs["mlm_logits"], weights)
        metrics[1].update_state(
            masked_lm_losses(outputs["mlm_logits"], labels["masked_lm_ids"]), weights)
        if self.objective == "mlm_nsp":
            nsp = labels["next_sentence_labels"]
            metrics[2].update_state(nsp, outputs["nsp_logits"])
            metrics[3].update_state(next_sentence_losses(outputs["nsp_logits"], nsp))
