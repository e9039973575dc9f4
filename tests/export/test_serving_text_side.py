"""The classifier and multiple-choice SavedModels take their text side from the
family: with XLNet's, raw text is tokenized by SentencePiece in the graph and
packed A <sep> B <sep> <cls> on the left, exactly as the Python side packs it,
and the SentencePiece model is the SavedModel's vocabulary asset. A stand-in
model that reads every input (ids, mask, segment ids) shows any difference."""

import os

import keras
import numpy as np
import pytest
import tensorflow as tf

from contracts import registry
from tasks.classification.serving import save_classification
from tasks.multiple_choice.serving import save_multiple_choice
from tests.families.xlnet.spiece_model import learn_spiece_model

SEQ_LENGTH = 16
LABELS = ("no", "yes", "maybe")
TEXTS_A = ["The red house counted 74 rooms.", "", "On May 3, 1950 the old house counted "
           "many rooms and 2 doors, then more rooms."]
TEXTS_B = ["Doors!", "tall rooms", ""]


def stand_in_model(num_outputs, vocab_size=200):
    """Encoder inputs [batch, seq] -> {"logits"}: masked embeddings of ids and
    segment ids, position-weighted so the padding side matters."""
    names = ("input_word_ids", "input_mask", "input_type_ids")
    inputs = {name: keras.Input((None,), dtype="int32", name=name) for name in names}
    words = keras.layers.Embedding(vocab_size, 8)(inputs["input_word_ids"])
    types = keras.layers.Embedding(5, 8)(inputs["input_type_ids"])
    mask = keras.ops.cast(inputs["input_mask"], "float32")[..., None]
    positions = keras.ops.cumsum(keras.ops.ones_like(mask), axis=1)
    pooled = keras.ops.sum((words + types) * mask * positions, axis=1)
    return keras.Model(inputs, {"logits": keras.layers.Dense(num_outputs)(pooled)})


class ChoiceScorer(keras.Model):
    """Inputs [batch, choices, seq] -> {"logits": [batch, choices]} of a per-sequence model."""

    def __init__(self, scorer):
        super().__init__()
        self.scorer = scorer

    def call(self, inputs, training=False):
        shape = keras.ops.shape(inputs["input_word_ids"])
        flat = {name: keras.ops.reshape(value, (-1, shape[2])) for name, value in inputs.items()}
        return {"logits": keras.ops.reshape(self.scorer(flat)["logits"], (shape[0], shape[1]))}


@pytest.fixture(scope="module")
def xlnet_text(tmp_path_factory):
    return registry.text_side_for("xlnet", learn_spiece_model(tmp_path_factory.mktemp("spm")), False)


def test_classifier_serves_xlnet_text_as_python_packs_it(xlnet_text, tmp_path):
    keras.utils.set_random_seed(3)
    model = stand_in_model(len(LABELS))
    export_dir = save_classification(str(tmp_path / "1"), model, xlnet_text, SEQ_LENGTH, LABELS,
                                     paired=True)
    loaded = tf.saved_model.load(export_dir)
    served = loaded.signatures["serving_default"](text_a=tf.constant(TEXTS_A),
                                                  text_b=tf.constant(TEXTS_B))
    inputs = xlnet_text.encode_texts(TEXTS_A, TEXTS_B, SEQ_LENGTH)
    assert (inputs["input_mask"][1, 0], inputs["input_mask"][1, -1]) == (0, 1)  # padded on the left
    expected = tf.nn.softmax(model(inputs)["logits"]).numpy()
    # The same float32 graph on the same ids: equal up to op scheduling.
    np.testing.assert_allclose(served["probabilities"].numpy(), expected, rtol=1e-6, atol=1e-7)
    ids = loaded.signatures["serve_ids"](**{k: tf.constant(v) for k, v in inputs.items()})
    np.testing.assert_array_equal(ids["label_ids"].numpy(), served["label_ids"].numpy())
    with open(loaded.vocab_file.asset_path.numpy(), "rb") as f, \
            open(xlnet_text.model_file, "rb") as original:
        assert f.read() == original.read()
    assert os.path.basename(loaded.vocab_file.asset_path.numpy().decode()) == "spiece.model"


def test_multiple_choice_serves_xlnet_text(xlnet_text, tmp_path):
    keras.utils.set_random_seed(4)
    choice_model = stand_in_model(1)
    model = ChoiceScorer(choice_model)
    export_dir = save_multiple_choice(str(tmp_path / "1"), model, xlnet_text, SEQ_LENGTH)
    served = tf.saved_model.load(export_dir).signatures["serving_default"](
        context=tf.constant(TEXTS_A), endings=tf.constant([TEXTS_B] * 3))
    packed = xlnet_text.encode_texts([a for a in TEXTS_A for _ in TEXTS_B], TEXTS_B * 3, SEQ_LENGTH)
    expected = choice_model(packed)["logits"].numpy().reshape(3, 3)
    np.testing.assert_allclose(served["probabilities"].numpy(),
                               tf.nn.softmax(expected).numpy(), rtol=1e-6, atol=1e-7)

