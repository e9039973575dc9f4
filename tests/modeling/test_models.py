"""Every model class of `modeling/` passes the shared model checks
(`tests/modeling/model_test_case.py`): serialisation round trip, TensorFlow and
JAX agree, mixed precision."""

import numpy as np
import pytest

from families.bert.encoder import BertEncoder
from families.bert.pretrainer import BertPretrainer
from tasks.classification.model import SequenceClassifier
from tasks.multiple_choice.model import MultipleChoiceClassifier
from tasks.question_answering.model import SpanLabeler
from tasks.tagging.feature_based_tagger import FeatureBasedTagger
from tasks.tagging.model import TokenClassifier
from tests.modeling.model_test_case import (ModelCase, check_backends_agree, check_mixed_precision,
                                            check_serialization, jax_outputs)
from tests.tiny_config import TINY_CONFIG

BATCH, SEQ, CHOICES, PREDICTIONS = 2, 8, 3, 3
ENCODER_FEATURES = ("sequence_output", "pooled_output", "encoder_outputs")


def encoder_inputs(shape=(BATCH, SEQ)):
    rng = np.random.default_rng(0)
    mask = np.ones(shape, np.int32)
    mask[..., 0, SEQ - 3:] = 0  # padding in the first row
    return {"input_word_ids": rng.integers(1, TINY_CONFIG.vocab_size, shape).astype(np.int32),
            "input_mask": mask, "input_type_ids": (np.arange(SEQ) >= SEQ // 2).astype(np.int32)
            * np.ones(shape, np.int32)}


def pretraining_inputs():
    positions = np.array([[1, 2, 4], [3, 5, 6]], np.int32)
    return {**encoder_inputs(), "masked_lm_positions": positions}


def packed_inputs():
    """Each row packs two instances of four tokens (`input_mask` numbers them)."""
    inputs = pretraining_inputs()
    inputs["input_mask"] = np.repeat(np.array([[1, 2]], np.int32), SEQ // 2, axis=1).repeat(BATCH, 0)
    inputs["next_sentence_positions"] = np.array([[0, SEQ // 2]] * BATCH, np.int32)
    return inputs


def encoder(causal_attention=False):
    return BertEncoder(TINY_CONFIG, causal_attention=causal_attention)


def token_classifier_with_crf():
    """Its CRF's weights away from their zero start, so that a round trip that lost them shows."""
    model = TokenClassifier(encoder(), num_labels=5, crf=True)
    rng = np.random.default_rng(0)
    for weight in model.get_layer("crf").weights:
        weight.assign(rng.normal(size=weight.shape))
    return model


CASES = [
    ModelCase("encoder", encoder, encoder_inputs, ENCODER_FEATURES),
    ModelCase("pretrainer", lambda: BertPretrainer(encoder()), pretraining_inputs),
    ModelCase("pretrainer_mlm", lambda: BertPretrainer(encoder(), objective="mlm"), pretraining_inputs),
    ModelCase("pretrainer_ltr", lambda: BertPretrainer(encoder(causal_attention=True), objective="ltr"),
              pretraining_inputs),
    ModelCase("pretrainer_packed", lambda: BertPretrainer(encoder(), packed=True), packed_inputs),
    ModelCase("classifier", lambda: SequenceClassifier(encoder(), num_classes=3, dropout_rate=0.2),
              encoder_inputs),
    ModelCase("span_labeler", lambda: SpanLabeler(encoder()), encoder_inputs),
    ModelCase("token_classifier", lambda: TokenClassifier(encoder(), num_labels=5, dropout_rate=0.2),
              encoder_inputs),
    ModelCase("token_classifier_crf", token_classifier_with_crf, encoder_inputs),
    ModelCase("multiple_choice", lambda: MultipleChoiceClassifier(encoder(), dropout_rate=0.2),
              lambda: encoder_inputs((BATCH, CHOICES, SEQ))),
    ModelCase("feature_based_tagger",
              lambda: FeatureBasedTagger(encoder(), num_labels=5, layer_combination="weighted_sum_all",
                                         lstm_units=8, lstm_layers=1, dropout_rate=0.2),
              encoder_inputs),
]
IDS = [case.name for case in CASES]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_serialization_round_trip(case, tmp_path):
    check_serialization(case, tmp_path)


@pytest.fixture(scope="module")
def backend_outputs(tmp_path_factory):
    pytest.importorskip("jax")
    return jax_outputs(CASES, str(tmp_path_factory.mktemp("keras_files")))


@pytest.mark.parametrize("name", IDS)
def test_tensorflow_and_jax_agree(name, backend_outputs):
    check_backends_agree(*backend_outputs[name])


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_mixed_precision(case):
    check_mixed_precision(case)
