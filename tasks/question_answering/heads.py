"""The question-answering head of each encoder family as the task drives it:
its task model, what the windows feed it beside the encoder inputs, its loss,
the outputs its accuracy metrics read, and how answers are read back from what
prediction gathered. A family's record names its head
(`question_answering.head`); `question_answering_head` picks it, BERT's
start/end head where the record names none, so the task itself names no family.
"""

import keras
import numpy as np
from keras import ops

from contracts import registry
from modeling.encoder_interface import build_encoder
from modeling.feature_based_models import feature_based
from tasks.question_answering.answers import postprocess, predict_example
from tasks.question_answering.model import FeatureBasedSpanLabeler, SpanLabeler
from training.label_prior import prior_cross_entropy

OFFICIAL_NA_PROB_THRESH = 1.0  # the official v2.0 script's default


def cross_entropy(positions, log_probs):
    """-log p(position) per row."""
    return -ops.squeeze(ops.take_along_axis(log_probs, ops.expand_dims(positions, -1), axis=1), -1)


def start_end_prior(labels):
    """The mean of the start and end cross-entropies at their best constant
    predictions: the mean entropy of the start and of the end positions."""
    return (prior_cross_entropy(labels["start_positions"])
            + prior_cross_entropy(labels["end_positions"])) / 2.0


class StartEndHead:
    """BERT's, as the paper: start and end vectors score every token; the loss
    is the mean of the start and end softmax cross-entropies. Predictions
    already answer "" past `null_score_diff_threshold`, so scoring keeps the
    official script's threshold."""

    metric_outputs = ("start_logits", "end_logits")
    # What a batch cut to its longest window changes (`QuestionAnsweringTask._trim_padding`):
    per_position_outputs = ("start_logits", "end_logits")  # padded back
    position_inputs = position_outputs = ()  # positions in the window, moved with the cut

    def __init__(self, config, text_side=None):
        self.config = config
        self.text_side = text_side
        self.na_prob_thresh = OFFICIAL_NA_PROB_THRESH

    def build_model(self):
        """BERT's span labeler, or a feature-based family's (ELMo: its BiLSTM span head)."""
        encoder = build_encoder(self.config.encoder_config)
        if feature_based(encoder):
            config = self.config
            return FeatureBasedSpanLabeler(encoder, lstm_units=config.lstm_units,
                                           lstm_layers=config.lstm_layers,
                                           fine_tune_encoder=config.fine_tune_encoder)
        return SpanLabeler(encoder)

    def inputs(self, features, training):
        return {}

    def labels(self, features):
        return {"start_positions": np.array([f.start_position for f in features], np.int32),
                "end_positions": np.array([f.end_position for f in features], np.int32)}

    def loss(self, labels, outputs):
        start = keras.losses.sparse_categorical_crossentropy(
            labels["start_positions"], ops.cast(outputs["start_logits"], "float32"),
            from_logits=True)
        end = keras.losses.sparse_categorical_crossentropy(
            labels["end_positions"], ops.cast(outputs["end_logits"], "float32"),
            from_logits=True)
        return (start + end) / 2.0

    def prior_loss(self, labels):
        """`loss` of the best constant prediction of `labels` (`labels(features)` of
        the train windows): `start_end_prior`."""
        return start_end_prior(labels)

    def answers(self, examples, features, raw, postprocess_config):
        results = {int(uid): (start, end) for uid, start, end in zip(
            raw["unique_ids"], np.asarray(raw["start_logits"], np.float32).tolist(),
            np.asarray(raw["end_logits"], np.float32).tolist())}
        return postprocess(examples, features, results, postprocess_config, self.predictor(examples))

    def predictor(self, examples):
        """How one example's windows are read (`postprocess`'s `predict`): the
        original's rules over WordPiece's pieces."""
        return predict_example


def question_answering_head(family):
    """The head class of `family`: its record's, else `StartEndHead`; a head is
    made as `head(config, text_side)` (the task's config and text side)."""
    parts = registry.family(family).question_answering
    return parts.head if parts else StartEndHead
