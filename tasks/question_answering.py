"""Extractive question answering (SQuAD v1.1 and v2.0), as in the paper: start
and end vectors score every token, the loss is the mean of the start and end
softmax cross-entropies, and answers are read back from the logits by
`tasks.question_answering_answers`.

Evaluation scores the predictions of the "predict" split with the official
EM/F1 (`eval_results.json`); prediction writes `predictions.json`,
`nbest_predictions.json` and, for v2.0, `null_odds.json`.

Splits: "train" is `train_file` read for training (answers aligned, windows
labelled), "predict" is `predict_file` read for prediction (every question
kept, windows carry `unique_ids` to match logits back to questions).
"""

import dataclasses

import keras
import numpy as np
import tensorflow as tf
from absl import logging

from data.question_answering.features import check_lengths, convert_examples_to_features
from data.question_answering.squad_reader import read_squad_file
from data.text.families import wordpiece_only
from modeling.config import BertConfig
from modeling.encoder_interface import ENCODER_INPUTS, build_encoder
from modeling.task_models import BertSpanLabeler
from tasks.array_dataset import array_dataset
from tasks.base import FineTuningTask, text_side
from tasks.export_meta import SQUAD_OPTIONS, ExportMeta
from tasks.question_answering_metrics import squad_v1_scores, squad_v2_scores
from tasks.question_answering_answers import PostprocessConfig, postprocess, write_predictions


@dataclasses.dataclass
class QuestionAnsweringConfig:
    """The original run_squad.py settings (same names, same defaults)."""

    vocab_file: str
    bert_config: BertConfig
    train_file: str = None
    predict_file: str = None
    do_lower_case: bool = True
    max_seq_length: int = 384
    doc_stride: int = 128
    max_query_length: int = 64
    version_2_with_negative: bool = False
    n_best_size: int = 20
    max_answer_length: int = 30
    null_score_diff_threshold: float = 0.0
    init_checkpoint: str = None
    seed: int = 12345

    def __post_init__(self):
        check_lengths(self.max_seq_length, self.max_query_length, self.doc_stride)
        if self.max_seq_length > self.bert_config.max_position_embeddings:
            raise ValueError(f"max_seq_length {self.max_seq_length} exceeds the model's "
                             f"max_position_embeddings {self.bert_config.max_position_embeddings}")

    @property
    def postprocess(self):
        return PostprocessConfig(self.n_best_size, self.max_answer_length, self.do_lower_case,
                                 self.version_2_with_negative, self.null_score_diff_threshold)


@dataclasses.dataclass
class SquadSplit:
    """A split read and windowed: the `SquadFile` and its `SquadFeature`s."""

    squad_file: object
    features: list

    @property
    def examples(self):
        return self.squad_file.examples


class QuestionAnsweringTask(FineTuningTask):
    """Datasets yield features {input_word_ids, input_mask, input_type_ids}
    int32 [batch, seq] and labels {start_positions, end_positions} int32
    [batch] ("train") or {unique_ids} int32 [batch] ("predict"); the model's
    `start_logits` and `end_logits` are [batch, seq].

    Example:
    >>> task = QuestionAnsweringTask(QuestionAnsweringConfig(
    ...     "vocab.txt", config, train_file="train-v1.1.json", predict_file="dev-v1.1.json"))
    >>> trainer = Trainer(task, options); trainer.train(32, 1000, OptimizerConfig(3e-5))
    >>> raw = trainer.predict(8, split="predict")
    >>> task.evaluate(raw)
    {'exact_match': 81.2, 'f1': 88.5, 'total': 10570}
    """

    SPLITS = ("train", "predict")
    eval_splits = ("predict",)
    test_splits = ("predict",)
    eval_results_file = "eval_results.json"
    eval_from_predictions = True

    def __init__(self, config):
        self.config = config
        text = text_side(config)
        wordpiece_only(text, "the question answering task")
        self.tokenizer = text.tokenizer
        self._splits = {}
        self._answers = (None, None)  # (raw predictions, their `SquadPredictions`)

    def split(self, name):
        """The `SquadSplit` of "train" or "predict" (read and windowed once)."""
        if name not in self._splits:
            if name not in self.SPLITS:
                raise ValueError(f"unknown split {name!r}; expected one of {self.SPLITS}")
            path = self.config.train_file if name == "train" else self.config.predict_file
            if not path:
                raise ValueError(f"the {name!r} split needs --{name}_file")
            is_training = name == "train"
            config = self.config
            squad_file = read_squad_file(path, is_training, config.version_2_with_negative)
            features = convert_examples_to_features(
                squad_file.examples, self.tokenizer, config.max_seq_length, config.doc_stride,
                config.max_query_length, is_training)
            logging.info("%s: %d questions -> %d windows of %d tokens (%d questions skipped)",
                         path, len(squad_file.examples), len(features), config.max_seq_length,
                         len(squad_file.skipped))
            self._splits[name] = SquadSplit(squad_file, features)
        return self._splits[name]

    def num_examples(self, split):
        """Windows, what one pass over the split trains on."""
        return len(self.split(split).features)

    def build_model(self):
        return BertSpanLabeler(build_encoder(self.config.bert_config))

    def input_name(self, split):
        return self.config.train_file if split == "train" else self.config.predict_file

    def has_answers(self):
        """Whether the predict file has answers to score the predictions against."""
        return self.split("predict").squad_file.has_answers

    def build_dataset(self, split, batch_size, training, input_context=None):
        """Training: shuffled, repeated, full batches. Otherwise one pass in order."""
        features = self.split(split).features
        if not features:
            raise ValueError(f"the {split!r} split has no usable question")
        inputs = {name: np.stack([getattr(f, name) for f in features]) for name in ENCODER_INPUTS}
        if split == "train":
            labels = {"start_positions": np.array([f.start_position for f in features], np.int32),
                      "end_positions": np.array([f.end_position for f in features], np.int32)}
        else:
            labels = {"unique_ids": np.array([f.unique_id for f in features], np.int32)}
        return array_dataset(inputs, labels, batch_size, training, self.config.seed,
                             input_context).prefetch(tf.data.AUTOTUNE)

    def loss(self, labels, outputs):
        """(start + end cross-entropy) / 2 per window; 0 for prediction windows,
        which have no positions."""
        if "start_positions" not in labels:
            return keras.ops.zeros_like(keras.ops.cast(labels["unique_ids"], "float32"))
        start = keras.losses.sparse_categorical_crossentropy(
            labels["start_positions"], keras.ops.cast(outputs["start_logits"], "float32"),
            from_logits=True)
        end = keras.losses.sparse_categorical_crossentropy(
            labels["end_positions"], keras.ops.cast(outputs["end_logits"], "float32"),
            from_logits=True)
        return (start + end) / 2.0

    def build_metrics(self):
        return [keras.metrics.SparseCategoricalAccuracy(name="start_accuracy"),
                keras.metrics.SparseCategoricalAccuracy(name="end_accuracy")]

    def update_metrics(self, metrics, labels, outputs):
        if "start_positions" not in labels:
            return
        start_accuracy, end_accuracy = metrics
        start_accuracy.update_state(labels["start_positions"], outputs["start_logits"])
        end_accuracy.update_state(labels["end_positions"], outputs["end_logits"])

    def predictions(self, raw):
        """`SquadPredictions` of the predict split from what `Trainer.predict`
        gathered: {unique_ids, start_logits, end_logits} (worked out once for
        evaluation and prediction)."""
        if self._answers[0] is raw:
            return self._answers[1]
        results = {int(uid): (start, end) for uid, start, end in zip(
            raw["unique_ids"], np.asarray(raw["start_logits"], np.float32).tolist(),
            np.asarray(raw["end_logits"], np.float32).tolist())}
        split = self.split("predict")
        self._answers = (raw, postprocess(split.examples, split.features, results,
                                          self.config.postprocess))
        return self._answers[1]

    def score(self, squad_predictions):
        """Official EM/F1 (v2.0: with HasAns/NoAns splits and the best null
        threshold from the null odds) against the predict file's answers."""
        articles = self.split("predict").squad_file.articles
        if self.config.version_2_with_negative:
            return squad_v2_scores(articles, squad_predictions.predictions,
                                   squad_predictions.null_odds)
        return squad_v1_scores(articles, squad_predictions.predictions)

    def evaluate(self, predictions):
        return self.score(self.predictions(predictions))

    def write_predictions(self, split, predictions, output_dir):
        return write_predictions(self.predictions(predictions), output_dir)

    def export_meta(self):
        config = self.config
        return ExportMeta("squad", config.bert_config, config.vocab_file, config.do_lower_case,
                          config.max_seq_length, doc_stride=config.doc_stride,
                          squad={name: getattr(config, name) for name in SQUAD_OPTIONS},
                          task_model=self.task_model_config())
