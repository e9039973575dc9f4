"""Extractive question answering (SQuAD v1.1 and v2.0). The encoder family picks
the head (`tasks.question_answering.heads`): BERT's as in the paper (start and
end vectors score every token, answers read back from the logits by
`tasks.question_answering.answers`), XLNet's as its original `run_squad.py`
(the end conditioned on the start, an answer class for "no answer", answers
read from a start x end beam by `families.xlnet.question_answering.beam`),
OpenAI GPT's BERT's head over its own windows, the null answer read at
`_classify_` (`families.gpt.question_answering`).

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

from contracts import registry
from data.text.segments import stack_inputs
from data.text.text_side import text_side_of
from export.export_meta import ExportMeta
from modeling.encoder_interface import exceeds_positions
from tasks.question_answering.answers import PostprocessConfig, write_predictions
from tasks.question_answering.features import check_lengths, convert_examples_to_features
from tasks.question_answering.heads import question_answering_head
from tasks.question_answering.metrics import squad_v1_scores, squad_v2_scores
from tasks.question_answering.record import SQUAD_OPTIONS
from tasks.question_answering.squad_reader import read_squad_file
from training.array_dataset import array_dataset
from training.task import FineTuningTask


@dataclasses.dataclass
class QuestionAnsweringConfig:
    """The original run_squad.py settings (same names, same defaults; XLNet's
    `start_n_top` and `end_n_top` size its beam and mean nothing to BERT)."""

    vocab_file: str
    encoder_config: object  # the encoder config of any family
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
    start_n_top: int = 5
    end_n_top: int = 5
    trim_padding: bool = True  # inference batches as long as their longest window; off for TPU / XLA
    fine_tune_encoder: bool = False  # a feature-based family (ELMo): train its encoder too
    lstm_units: int = None  # a feature-based family's task BiLSTM (default: its record's)
    lstm_layers: int = None
    seed: int = 12345

    def __post_init__(self):
        check_lengths(self.max_seq_length, self.max_query_length, self.doc_stride)
        for name in ("start_n_top", "end_n_top"):
            if not 1 <= getattr(self, name) <= self.max_seq_length:
                raise ValueError(f"{name} must be in [1, max_seq_length={self.max_seq_length}], "
                                 f"got {getattr(self, name)}")
        if exceeds_positions(self.encoder_config, self.max_seq_length):
            raise ValueError(f"max_seq_length {self.max_seq_length} exceeds the model's "
                             f"max_position_embeddings {self.encoder_config.max_position_embeddings}")

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
    [batch] ("train") or {unique_ids} int32 [batch] ("predict"); BERT's model
    gives `start_logits` and `end_logits` [batch, seq]. XLNet's windows also
    feed `p_mask` and `cls_index` (and in training `start_positions`), its
    training labels add `is_impossible`, and its model gives the beam and
    `cls_logits` (`families.xlnet.span_labeler.XLNetSpanLabeler`).

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
        self.text_side = text_side_of(config)
        self.head = question_answering_head(registry.family_of(config.encoder_config).name)(config, self.text_side)
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
                squad_file.examples, self.text_side, config.max_seq_length, config.doc_stride,
                config.max_query_length, is_training)
            logging.info("%s: %d questions -> %d windows of %d tokens (%d questions skipped)",
                         path, len(squad_file.examples), len(features), config.max_seq_length,
                         len(squad_file.skipped))
            self._splits[name] = SquadSplit(squad_file, features)
        return self._splits[name]

    def num_examples(self, split):
        """Windows, what one pass over the split trains on."""
        return len(self.split(split).features)

    def prior_loss(self):
        """The head's loss of the best constant prediction of the train windows'
        labels (BERT's: the mean entropy of the start and end positions)."""
        return self.head.prior_loss(self.head.labels(self.split("train").features))

    def build_model(self):
        return self.head.build_model()

    def input_name(self, split):
        return self.config.train_file if split == "train" else self.config.predict_file

    def has_answers(self):
        """Whether the predict file has answers to score the predictions against."""
        return self.split("predict").squad_file.has_answers

    def build_dataset(self, split, batch_size, training, input_context=None):
        """Training: shuffled, repeated, full batches. Otherwise one pass, in
        order or, with `trim_padding`, from the shortest window to the longest,
        each batch cut to its longest (the SQuAD dev windows: 2.2x fewer tokens;
        answers are read back by `unique_ids`). Training batches are not cut:
        that would drop the padding from the original's softmax over every
        position."""
        features = self.split(split).features
        if not features:
            raise ValueError(f"the {split!r} split has no usable question")
        inputs = stack_inputs([f.inputs for f in features])
        inputs.update(self.head.inputs(features, training=split == "train"))
        if split == "train":
            labels = self.head.labels(features)
        else:
            labels = {"unique_ids": np.array([f.unique_id for f in features], np.int32)}
        trims = self.config.trim_padding and not training
        dataset = array_dataset(inputs, labels, batch_size, training, self.config.seed,
                                input_context, inputs["input_mask"].sum(axis=-1) if trims else None)
        if trims:
            dataset = dataset.map(self._trim_padding, num_parallel_calls=tf.data.AUTOTUNE)
        return dataset.prefetch(tf.data.AUTOTUNE)

    def _trim_padding(self, features, labels):
        """Cuts a batch to its longest window. The head's position inputs
        (XLNet's `cls_index`) move with the cut; `labels["positions_cut"]`
        (positions cut before each window: XLNet's left padding) lets
        `gathered` move its position outputs back."""
        positions = self.head.position_inputs
        trimmed = self.text_side.trim_padding({k: v for k, v in features.items() if k not in positions})
        cut = self.text_side.cut_before(tf.shape(features["input_mask"])[-1],
                                        tf.shape(trimmed["input_mask"])[-1])
        return ({**trimmed, **{k: features[k] - cut for k in positions}},
                {**labels, "positions_cut": tf.fill(tf.shape(labels["unique_ids"]), cut)})

    def gathered(self, labels, outputs):
        """Unique ids and outputs as in full-length windows: per-position ones
        padded back to `max_seq_length`, positions moved back past the cut."""
        if "positions_cut" not in labels:
            return {**labels, **outputs}
        cut = labels["positions_cut"][:, None]
        moved = {k: outputs[k] + tf.cast(cut, outputs[k].dtype)
                 for k in self.head.position_outputs if k in outputs}
        per_position = {k: outputs[k] for k in self.head.per_position_outputs if k in outputs}
        return {**labels, **outputs, **moved,
                **self.text_side.restore_padding(per_position, self.config.max_seq_length)}

    def loss(self, labels, outputs):
        """The head's loss per window; 0 for prediction windows, which have no
        positions."""
        if "start_positions" not in labels:
            return keras.ops.zeros_like(keras.ops.cast(labels["unique_ids"], "float32"))
        return self.head.loss(labels, outputs)

    def build_metrics(self):
        return [keras.metrics.SparseCategoricalAccuracy(name="start_accuracy"),
                keras.metrics.SparseCategoricalAccuracy(name="end_accuracy")]

    def update_metrics(self, metrics, labels, outputs):
        if "start_positions" not in labels:
            return
        start_accuracy, end_accuracy = metrics
        start, end = self.head.metric_outputs
        start_accuracy.update_state(labels["start_positions"], outputs[start])
        end_accuracy.update_state(labels["end_positions"], outputs[end])

    def predictions(self, raw):
        """`SquadPredictions` of the predict split from what `Trainer.predict`
        gathered: `unique_ids` and the model's outputs (worked out once for
        evaluation and prediction)."""
        if self._answers[0] is raw:
            return self._answers[1]
        split = self.split("predict")
        self._answers = (raw, self.head.answers(split.examples, split.features, raw,
                                                self.config.postprocess))
        return self._answers[1]

    def score(self, squad_predictions):
        """Official EM/F1 (v2.0: with HasAns/NoAns splits and the best null
        threshold from the null odds, answering "" past the head's
        `na_prob_thresh`) against the predict file's answers."""
        articles = self.split("predict").squad_file.articles
        if self.config.version_2_with_negative:
            return squad_v2_scores(articles, squad_predictions.predictions,
                                   squad_predictions.null_odds, self.head.na_prob_thresh)
        return squad_v1_scores(articles, squad_predictions.predictions)

    def evaluate(self, predictions):
        return self.score(self.predictions(predictions))

    def write_predictions(self, split, predictions, output_dir):
        return write_predictions(self.predictions(predictions), output_dir)

    def export_meta(self):
        config = self.config
        return ExportMeta("question_answering", config.encoder_config, config.vocab_file, config.do_lower_case,
                          config.max_seq_length, doc_stride=config.doc_stride,
                          squad={name: getattr(config, name) for name in SQUAD_OPTIONS},
                          task_model=self.task_model_config())
