"""Multiple choice (SWAG and any set of N endings), as in the paper: each choice
is a (context, ending) pair packed by the encoder family's text side (BERT:
[CLS] context [SEP] ending [SEP]), one vector V scores each
choice's pooled output, softmax over the choices, cross-entropy on the gold one.

Split files in `data_dir`: `train`, `dev` (SWAG calls it `val`) and `test`,
each `.csv` in SWAG's layout or `.jsonl` (see `tasks/multiple_choice/swag_reader.py`).
"""

import dataclasses
import os

import keras
import numpy as np
import tensorflow as tf
from absl import logging

from data.text.text_side import text_side_of
from export.export_meta import ExportMeta
from modeling.encoder_interface import build_encoder
from modeling.feature_based_models import feature_based
from tasks.multiple_choice.features import NO_LABEL, encode_examples
from tasks.multiple_choice.model import FeatureBasedMultipleChoice, MultipleChoiceClassifier
from tasks.multiple_choice.predictions import write_predictions
from tasks.multiple_choice.swag_reader import read_multiple_choice_file
from training.array_dataset import array_dataset
from training.label_prior import prior_cross_entropy
from training.task import FineTuningTask

SPLIT_NAMES = {"train": ("train",), "dev": ("val", "dev"), "test": ("test",)}
EXTENSIONS = (".csv", ".jsonl")


def find_split_file(data_dir, split):
    """The one file of `split` in `data_dir`, e.g. `val.csv` or `dev.jsonl` for "dev"."""
    if split not in SPLIT_NAMES:
        raise ValueError(f"unknown split {split!r}; expected one of {sorted(SPLIT_NAMES)}")
    candidates = [os.path.join(data_dir, name + ext)
                  for name in SPLIT_NAMES[split] for ext in EXTENSIONS]
    found = [path for path in candidates if os.path.isfile(path)]
    if len(found) != 1:
        problem = "no file" if not found else f"{len(found)} files ({', '.join(found)})"
        raise FileNotFoundError(
            f"{problem} for split {split!r} in {data_dir!r}; expected exactly one of "
            + ", ".join(os.path.basename(c) for c in candidates))
    return found[0]


@dataclasses.dataclass
class MultipleChoiceConfig:
    data_dir: str
    vocab_file: str
    encoder_config: object  # the encoder config of any family
    do_lower_case: bool = True
    max_seq_length: int = 128
    init_checkpoint: str = None
    dropout_rate: float = None  # default: the encoder's hidden_dropout_prob
    skip_bad_rows: bool = False
    trim_padding: bool = True  # batches as long as their longest choice; off for TPU / XLA
    fine_tune_encoder: bool = False  # a feature-based family (ELMo): train its encoder too
    lstm_units: int = None  # a feature-based family's task BiLSTM (default: its record's)
    lstm_layers: int = None
    seed: int = 12345


class MultipleChoiceTask(FineTuningTask):
    """Datasets yield features {input_word_ids, input_mask, input_type_ids}
    int32 [batch, choices, seq] and labels {label: int32 [batch],
    example_index: int32 [batch]}; the model's `logits` are [batch, choices].

    Example:
    >>> task = MultipleChoiceTask(MultipleChoiceConfig(
    ...     data_dir="swag", vocab_file="vocab.txt", encoder_config=config))
    >>> model = task.build_model(); task.initialize(model)
    >>> features, labels = next(iter(task.build_dataset("dev", 8, training=False)))
    >>> model(features)["logits"].shape
    (8, 4)
    """

    def __init__(self, config):
        self.config = config
        self.text_side = text_side_of(config)
        self._files = {}
        self._features = {}

    def choice_file(self, split):
        """The split's `ChoiceFile` (read once)."""
        if split not in self._files:
            path = find_split_file(self.config.data_dir, split)
            self._files[split] = read_multiple_choice_file(path, self.config.skip_bad_rows)
        return self._files[split]

    def num_examples(self, split):
        return len(self.choice_file(split).examples)

    def features(self, split):
        """The split's `ChoiceFeatures` (encoded once)."""
        if split not in self._features:
            choice_file = self.choice_file(split)
            features = encode_examples(self.text_side, choice_file.examples,
                                       self.config.max_seq_length)
            if features.num_truncated:
                logging.info("%s: %d of %d choices truncated to max_seq_length=%d",
                             choice_file.path, features.num_truncated,
                             len(choice_file.examples) * choice_file.num_choices,
                             self.config.max_seq_length)
            self._features[split] = features
        return self._features[split]

    def prior_loss(self):
        """The entropy of the gold choice's position over the train examples."""
        return prior_cross_entropy(self.features("train").labels)

    def build_model(self):
        dropout = self.config.dropout_rate
        if dropout is None:
            dropout = self.config.encoder_config.hidden_dropout_prob
        encoder = build_encoder(self.config.encoder_config)
        if feature_based(encoder):
            return FeatureBasedMultipleChoice(encoder, dropout_rate=dropout,
                                              lstm_units=self.config.lstm_units,
                                              lstm_layers=self.config.lstm_layers,
                                              fine_tune_encoder=self.config.fine_tune_encoder)
        return MultipleChoiceClassifier(encoder, dropout_rate=dropout)

    def build_dataset(self, split, batch_size, training, input_context=None):
        """Training: shuffled, repeated, full batches. Otherwise one pass.
        "train" and "dev" need a label on every example; "test" may have none.

        With `trim_padding` each batch is cut to its longest choice, and
        evaluation and prediction read the examples from shortest to longest
        (metrics do not depend on the order; predictions go back to file order
        by `example_index`)."""
        features = self.features(split)
        if split != "test" and (features.labels == NO_LABEL).any():
            raise ValueError(f"{self.choice_file(split).path}: the {split} split needs a label on "
                             f"every example, {int((features.labels == NO_LABEL).sum())} have none")
        inputs = features.inputs
        labels = {"label": features.labels,
                  "example_index": np.arange(len(features.labels), dtype=np.int32)}
        lengths = inputs["input_mask"].sum(axis=-1).max(axis=-1) if self.config.trim_padding else None
        dataset = array_dataset(inputs, labels, batch_size, training, self.config.seed,
                                input_context, lengths)
        if self.config.trim_padding:
            dataset = dataset.map(lambda x, y: (self.text_side.trim_padding(x), y),
                                  num_parallel_calls=tf.data.AUTOTUNE)
        return dataset.prefetch(tf.data.AUTOTUNE)

    def loss(self, labels, outputs):
        """Cross-entropy of the softmax over the choices; 0 for unlabelled (test) examples."""
        label = labels["label"]
        losses = keras.losses.sparse_categorical_crossentropy(
            keras.ops.maximum(label, 0), keras.ops.cast(outputs["logits"], "float32"),
            from_logits=True)
        return keras.ops.where(label == NO_LABEL, 0.0, losses)

    def build_metrics(self):
        return [keras.metrics.SparseCategoricalAccuracy(name="accuracy")]

    def update_metrics(self, metrics, labels, outputs):
        for metric in metrics:
            metric.update_state(labels["label"], outputs["logits"])

    def write_predictions(self, split, predictions, output_dir):
        """`<split>_predictions.jsonl`: per-example probabilities and predicted index,
        rows put back in input order."""
        examples = self.choice_file(split).examples
        order = np.asarray(predictions["example_index"])
        if not np.array_equal(np.sort(order), np.arange(len(examples))):
            raise ValueError(f"predictions cover {len(np.unique(order))} distinct examples of "
                             f"{len(examples)} in split {split!r}")
        logits = np.empty((len(examples), np.shape(predictions["logits"])[-1]), np.float32)
        logits[order] = predictions["logits"]
        path = os.path.join(output_dir, f"{split}_predictions.jsonl")
        write_predictions(path, examples, logits)
        return [path]

    def export_meta(self):
        config = self.config
        return ExportMeta("multiple_choice", config.encoder_config, config.vocab_file,
                          config.do_lower_case, config.max_seq_length,
                          task_model=self.task_model_config())
