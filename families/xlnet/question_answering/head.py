"""XLNet's question-answering head as the task drives it (see
`tasks.question_answering.heads` for what a head provides)."""

import keras
import numpy as np
from keras import ops

from families.xlnet.question_answering.beam import postprocess_beam
from families.xlnet.span_labeler import XLNetSpanLabeler
from modeling.encoder_interface import build_encoder
from tasks.question_answering.heads import cross_entropy, start_end_prior
from training.label_prior import prior_cross_entropy


class BeamHead:
    """XLNet's, as its original `run_squad.py`: the end is conditioned on the
    gold start in training and on each of the top starts at inference (a
    `start_n_top` x `end_n_top` beam); the loss is (start + end cross-entropy)
    / 2, plus for v2.0 0.5 x the binary cross-entropy of the answer class
    (`cls_logits`) against `is_impossible`. Predictions are always the best
    span (`question_answering_beam`); scoring answers "" where the null odds
    exceed `null_score_diff_threshold`, and searches the best threshold."""

    metric_outputs = ("start_log_probs", "end_log_probs")
    per_position_outputs = ()  # at inference the head gives its beam
    position_inputs = ("cls_index",)
    position_outputs = ("start_top_index", "end_top_index")

    def __init__(self, config, text_side=None):
        del text_side  # the beam's answers read the windows' own pieces
        self.config = config
        self.na_prob_thresh = config.null_score_diff_threshold

    def build_model(self):
        config = self.config
        return XLNetSpanLabeler(build_encoder(config.encoder_config), config.start_n_top,
                                config.end_n_top, config.encoder_config.hidden_dropout_prob)

    def inputs(self, features, training):
        inputs = {"p_mask": np.stack([f.p_mask for f in features]),
                  "cls_index": np.array([f.cls_index for f in features], np.int32)}
        if training:  # the end logits are conditioned on the gold start
            inputs["start_positions"] = np.array([f.start_position for f in features], np.int32)
        return inputs

    def labels(self, features):
        return {"start_positions": np.array([f.start_position for f in features], np.int32),
                "end_positions": np.array([f.end_position for f in features], np.int32),
                "is_impossible": np.array([f.is_impossible for f in features], np.float32)}

    def loss(self, labels, outputs):
        loss = (cross_entropy(labels["start_positions"], outputs["start_log_probs"])
                + cross_entropy(labels["end_positions"], outputs["end_log_probs"])) / 2.0
        if not self.config.version_2_with_negative:
            return loss
        answer_class = keras.losses.binary_crossentropy(
            ops.expand_dims(labels["is_impossible"], -1),
            ops.expand_dims(outputs["cls_logits"], -1), from_logits=True)
        return loss + 0.5 * answer_class

    def prior_loss(self, labels):
        """`loss` of the best constant prediction of `labels`: the mean entropy
        of the start and end positions, and for v2.0 half that of the answer class."""
        prior = start_end_prior(labels)
        if not self.config.version_2_with_negative:
            return prior
        return prior + 0.5 * prior_cross_entropy(labels["is_impossible"].astype(np.int64))

    def answers(self, examples, features, raw, postprocess_config):
        beams = zip(*(np.asarray(raw[name]).tolist() for name in (
            "start_top_log_probs", "start_top_index", "end_top_log_probs", "end_top_index")))
        results = {int(uid): (beam, cls_logit) for uid, beam, cls_logit in zip(
            raw["unique_ids"], beams, np.asarray(raw["cls_logits"], np.float32).tolist())}
        return postprocess_beam(examples, features, results, postprocess_config)
