"""Sentence and sentence-pair classification (GLUE, XNLI, the user's data), as
in the paper: a dense layer on the pooled [CLS] output, softmax cross-entropy
over the labels, or a single score with squared error for regression (STS-B).

A similarity task (the reader's `similarity`: STS-B, MRPC, QQP, or a custom
pair task with `--similarity`) of a family whose text side asks for it
(`similarity_in_both_orders`: GPT) is encoded in both orders, the pooled
vectors summed (`modeling.task_models.SequenceClassifier(both_orders=True)`),
in training, evaluation and the exported SavedModel.
"""

import dataclasses
import keras
import numpy as np
import tensorflow as tf

from data.text.text_side import text_side_of
from export.export_meta import ExportMeta
from modeling.encoder_interface import build_encoder
from modeling.feature_based_models import feature_based
from tasks.classification.features import cached_tfrecord, input_shapes, parse_batch, sort_by_length
from tasks.classification.metrics import compute_metrics
from tasks.classification.model import FeatureBasedClassifier, SequenceClassifier
from tasks.classification.submission import write_submission
from training.label_prior import prior_cross_entropy, prior_squared_error
from training.task import FineTuningTask

_SHUFFLE_BUFFER = 100_000
_BATCHES_PER_LENGTH_GROUP = 50


@dataclasses.dataclass
class ClassificationConfig:
    """`reader` is a `tasks.classification.glue_readers.GlueReader` or
    `tasks.classification.custom_reader.CustomReader`; `encoder_config` is the
    encoder's config (any family: an `XLNetConfig` too) and `vocab_file` that
    family's vocabulary file (`vocab.txt`, `spiece.model`); cached TFRecords
    go to `cache_dir`."""

    reader: object
    vocab_file: str
    encoder_config: object  # the encoder config of any family
    cache_dir: str
    do_lower_case: bool = True
    max_seq_length: int = 128
    init_checkpoint: str = None
    dropout_rate: float = None  # default: the encoder's hidden_dropout_prob
    trim_padding: bool = True  # batches as long as their longest example; off for TPU / XLA
    group_by_length: bool = False  # training batches of similar lengths (less padding)
    fine_tune_encoder: bool = False  # a feature-based family (ELMo): train its encoder too
    lstm_units: int = None  # a feature-based family's task BiLSTM (default: its record's)
    lstm_layers: int = None
    seed: int = 12345


class ClassificationTask(FineTuningTask):
    """Datasets yield features {input_word_ids, input_mask, input_type_ids}
    int32 [batch, seq] and labels {label: int32 (float32 for regression)
    [batch], example_index: int32 [batch]}; the model's `logits` are
    [batch, num_labels] ([batch, 1] for regression). With `both_orders` each
    input is [batch, 2, seq]: the pair as (A, B) and as (B, A).

    Example:
    >>> task = ClassificationTask(ClassificationConfig(
    ...     GlueReader("MRPC", "glue/MRPC"), "vocab.txt", config, cache_dir="/tmp/run"))
    >>> model = task.build_model(); task.initialize(model)
    >>> features, labels = next(iter(task.build_dataset("dev", 8, training=False)))
    >>> model(features)["logits"].shape
    (8, 2)
    """

    eval_loss_twice = True

    def __init__(self, config):
        self.config = config
        self.reader = config.reader
        self.text_side = text_side_of(config)
        self._splits = {}
        self._files = {}

    @property
    def name(self):
        return self.reader.name

    @property
    def is_regression(self):
        return self.reader.is_regression

    @property
    def eval_splits(self):
        """Dev splits: ("dev",), or MNLI's ("dev_matched", "dev_mismatched")."""
        return self.reader.eval_splits

    @property
    def test_splits(self):
        return self.reader.test_splits

    @property
    def both_orders(self):
        """Whether pairs are encoded in both orders (a similarity task of a
        family whose text side asks for it)."""
        return (self.reader.paired and self.reader.similarity
                and self.text_side.similarity_in_both_orders)

    @property
    def num_outputs(self):
        return 1 if self.is_regression else len(self.reader.label_list)

    def split_data(self, split):
        """The split's `SplitData` (read once)."""
        if split not in self._splits:
            self._splits[split] = self.reader.read(split)
        return self._splits[split]

    def num_examples(self, split):
        return len(self.split_data(split).examples)

    def tfrecord(self, split):
        """Path of the split's cached TFRecord (written on first use)."""
        if split not in self._files:
            config = self.config
            self._files[split] = cached_tfrecord(
                config.cache_dir, f"{self.name}-{split}", self.split_data(split).examples,
                self.text_side, config.vocab_file, config.do_lower_case, config.max_seq_length,
                self.reader.label_list, self.both_orders)
        return self._files[split]

    def prior_loss(self):
        """Classification: the entropy of the train labels; regression: their variance."""
        examples = self.split_data("train").examples
        if self.is_regression:
            return prior_squared_error([float(e.label) for e in examples])
        ids = {label: i for i, label in enumerate(self.reader.label_list)}
        return prior_cross_entropy([ids[e.label] for e in examples])

    def build_model(self):
        dropout = self.config.dropout_rate
        if dropout is None:
            dropout = self.config.encoder_config.hidden_dropout_prob
        encoder = build_encoder(self.config.encoder_config)
        if feature_based(encoder):
            return FeatureBasedClassifier(encoder, self.num_outputs, dropout_rate=dropout,
                                          lstm_units=self.config.lstm_units,
                                          lstm_layers=self.config.lstm_layers,
                                          fine_tune_encoder=self.config.fine_tune_encoder)
        return SequenceClassifier(encoder, self.num_outputs, dropout_rate=dropout,
                                  both_orders=self.both_orders)

    def build_dataset(self, split, batch_size, training, input_context=None):
        """Training: shuffled, repeated, full batches. Otherwise one pass.

        With `group_by_length`, training takes windows of 50 shuffled batches,
        cuts each window into batches of neighbouring lengths and shuffles
        those: with `trim_padding`, short sentences then cost little.
        Evaluation and prediction with `trim_padding` always cut their windows
        so (windows in file order, nothing shuffled): on the GLUE dev sets that
        is 1.4-1.8x fewer tokens than batches in file order. Metrics do not depend on the order,
        and predictions go back to file order by `example_index`.
        """
        data = self.split_data(split)
        if training and any(e.label is None for e in data.examples):
            raise ValueError(f"{data.path}: training needs a label on every example")
        dataset = tf.data.TFRecordDataset(self.tfrecord(split))
        if input_context is not None:
            dataset = dataset.shard(input_context.num_input_pipelines,
                                    input_context.input_pipeline_id)
            batch_size = input_context.get_per_replica_batch_size(batch_size)
        if training:
            buffer = min(max(self.num_examples(split), 1), _SHUFFLE_BUFFER)
            dataset = dataset.shuffle(buffer, seed=self.config.seed).repeat()
        grouped = self.config.group_by_length if training else self.config.trim_padding
        window = batch_size * (_BATCHES_PER_LENGTH_GROUP if grouped else 1)
        dataset = dataset.batch(window, drop_remainder=training)
        shapes = input_shapes(self.text_side, self.config.max_seq_length, self.both_orders)
        dataset = dataset.map(lambda records: parse_batch(records, shapes, self.is_regression),
                              num_parallel_calls=tf.data.AUTOTUNE)
        if grouped:
            dataset = dataset.map(sort_by_length).unbatch().batch(batch_size,
                                                                  drop_remainder=training)
        if grouped and training:
            dataset = dataset.shuffle(_BATCHES_PER_LENGTH_GROUP, seed=self.config.seed)
        if self.config.trim_padding:
            dataset = dataset.map(lambda features, labels: (self.text_side.trim_padding(features),
                                                            labels),
                                  num_parallel_calls=tf.data.AUTOTUNE)
        return dataset.prefetch(tf.data.AUTOTUNE)

    def loss(self, labels, outputs):
        logits = keras.ops.cast(outputs["logits"], "float32")
        if self.is_regression:
            return keras.ops.square(logits[:, 0] - keras.ops.cast(labels["label"], "float32"))
        return keras.losses.sparse_categorical_crossentropy(labels["label"], logits,
                                                            from_logits=True)

    def build_metrics(self):
        if self.is_regression:
            return [keras.metrics.MeanSquaredError(name="mse")]
        return [keras.metrics.SparseCategoricalAccuracy(name="accuracy")]

    def update_metrics(self, metrics, labels, outputs):
        logits = keras.ops.cast(outputs["logits"], "float32")
        for metric in metrics:
            if self.is_regression:  # [batch, 1]: a squared error per example, not per batch
                metric.update_state(keras.ops.expand_dims(labels["label"], -1), logits)
            else:
                metric.update_state(labels["label"], logits)

    def predicted(self, logits):
        """Class ids (or scores, for regression) from logits."""
        logits = np.asarray(logits, np.float32)
        return logits[:, 0] if self.is_regression else logits.argmax(axis=-1)

    def evaluate(self, predictions):
        """The task's GLUE metrics over the whole split (`accuracy`, `f1`, `mcc`,
        `pearson`, `spearman`, as the task reports them)."""
        return compute_metrics(self.name, self.is_regression, predictions["label"],
                               self.predicted(predictions["logits"]))

    def write_predictions(self, split, predictions, output_dir):
        """The split's predictions in the GLUE submission format, rows in file order."""
        examples = self.split_data(split).examples
        order = np.asarray(predictions["example_index"])
        if sorted(order.tolist()) != list(range(len(examples))):
            raise ValueError(f"predictions cover {len(order)} rows, the {split} split has "
                             f"{len(examples)} examples")
        values = np.empty(len(examples), np.float32 if self.is_regression else np.int64)
        values[order] = self.predicted(predictions["logits"])
        if not self.is_regression:
            values = [self.reader.label_list[i] for i in values]
        return [write_submission(output_dir, self.name, split, [e.guid for e in examples],
                                 values)]

    def export_meta(self):
        config = self.config
        return ExportMeta("classification", config.encoder_config, config.vocab_file,
                          config.do_lower_case, config.max_seq_length, self.reader.label_list,
                          paired=self.reader.paired,
                          both_orders=self.both_orders, task_model=self.task_model_config())
