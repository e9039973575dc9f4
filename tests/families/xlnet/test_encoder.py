"""XLNet behind the encoder interface: it passes `check_encoder`, is rebuilt from
its config inside a task model, and a classification task model on it gives the
logits of Hugging Face's `XLNetForSequenceClassification` (torch, CPU, eval,
random weights, float32) within the float32 bound of `tolerance.py`."""

import keras
import numpy as np
import pytest

from contracts import registry
from families.xlnet.checkpoints.parts import load_hf_xlnet
from families.xlnet.encoder import XLNetEncoder
from families.xlnet.sequence_summary import XLNetClassificationHead
from modeling.encoder_interface import build_encoder, check_encoder
from tasks.classification.model import SequenceClassifier
from tests.families.xlnet.cases import TINY, fine_tuning_inputs

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
from tests.families.xlnet.hf_reference import hf_model, hf_tensors  # noqa: E402
from tests.families.xlnet.test_classification_head import hf_logits, logits_bound  # noqa: E402


def interface_inputs(inputs):
    """The original's fine-tuning inputs in the interface's terms (mask 1 on real tokens)."""
    return {"input_word_ids": inputs["input_ids"],
            "input_mask": (1 - inputs["input_mask"]).astype(np.int32),
            "input_type_ids": inputs["segment_ids"]}


def test_passes_the_interface_and_round_trips():
    encoder = build_encoder(TINY)
    assert isinstance(encoder, XLNetEncoder) and registry.family_of(TINY).name == "xlnet"
    check_encoder(encoder)
    inputs = interface_inputs(fine_tuning_inputs(np.random.default_rng(5)))
    outputs = encoder(inputs)
    assert len(outputs["encoder_outputs"]) == TINY.n_layer
    np.testing.assert_array_equal(outputs["encoder_outputs"][-1], outputs["sequence_output"])
    assert outputs["pooled_output"].shape == (2, TINY.d_model)
    model = SequenceClassifier(encoder, 3)
    rebuilt = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(model))
    assert isinstance(rebuilt.encoder, XLNetEncoder) and rebuilt.encoder.config == TINY
    rebuilt.set_weights(model.get_weights())
    np.testing.assert_array_equal(rebuilt(inputs)["logits"], model(inputs)["logits"])


def test_padding_is_the_complement_of_the_input_mask():
    """Changing the ids under padding changes nothing; under a real token it does."""
    keras.utils.set_random_seed(6)
    encoder = build_encoder(TINY)
    inputs = interface_inputs(fine_tuning_inputs(np.random.default_rng(6)))
    assert inputs["input_mask"][1, 0] == 0
    base = np.asarray(encoder(inputs)["pooled_output"])
    changed = {**inputs, "input_word_ids": inputs["input_word_ids"].copy()}
    changed["input_word_ids"][1, 0] = (changed["input_word_ids"][1, 0] + 1) % TINY.n_token
    np.testing.assert_allclose(encoder(changed)["pooled_output"], base, rtol=0, atol=1e-6)
    changed["input_word_ids"][1, 5] = (changed["input_word_ids"][1, 5] + 1) % TINY.n_token
    # Far above float32 noise (the padding change above moves nothing by more than 1e-6).
    assert np.abs(np.asarray(encoder(changed)["pooled_output"])[1] - base[1]).max() > 1e-5


@pytest.mark.parametrize("units", [3, 1], ids=["classes", "regression"])
def test_classifier_matches_hugging_face_sequence_classification(units):
    inputs = fine_tuning_inputs(np.random.default_rng(31))
    reference = hf_model(TINY, model_class=transformers.XLNetForSequenceClassification,
                         num_labels=units)
    theirs, hidden = hf_logits(reference, inputs)
    tensors = hf_tensors(reference)
    model = SequenceClassifier(build_encoder(TINY), units, dropout_rate=TINY.dropout)
    # Hugging Face's head loads by name into the original's head layout, whose two
    # dense layers are the encoder's summary and the task model's classifier here.
    head = XLNetClassificationHead(units, TINY.d_model)
    head.build((None, None, TINY.d_model))
    load_hf_xlnet(model.encoder.backbone, tensors, head)
    model.encoder.summary.set_weights(head.summary.get_weights())
    model.get_layer("classifier").set_weights(head.logits_proj.get_weights())
    ours = np.asarray(model(interface_inputs(inputs))["logits"])
    assert ours.shape == theirs.shape and ours.dtype == np.float32
    assert float(np.abs(ours - theirs).max()) <= logits_bound(TINY, tensors, hidden)
