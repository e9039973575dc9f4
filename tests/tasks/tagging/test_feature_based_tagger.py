"""The feature-based tagger: layer combinations, a frozen encoder, a masked BiLSTM."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from families.bert.config import BertConfig
from families.bert.encoder import BertEncoder
from tasks.tagging.feature_based_tagger import (LAYER_COMBINATIONS, FeatureBasedTagger,
                                                LayerCombination, encoder_layer_outputs)

CONFIG = BertConfig(vocab_size=64, hidden_size=16, num_hidden_layers=4, num_attention_heads=2,
                    intermediate_size=32, hidden_dropout_prob=0.5,
                    attention_probs_dropout_prob=0.5)


def _inputs(batch=2, seq=7, padding=2):
    rng = np.random.default_rng(0)
    mask = np.ones((batch, seq), np.int32)
    mask[1, seq - padding:] = 0
    return {"input_word_ids": rng.integers(5, 64, (batch, seq)).astype(np.int32) * mask,
            "input_mask": mask, "input_type_ids": np.zeros((batch, seq), np.int32)}


@pytest.fixture(scope="module")
def encoder():
    keras.utils.set_random_seed(1)
    return BertEncoder(CONFIG)


def test_each_combination_reads_the_layers_it_names(encoder):
    x = _inputs()
    layers = [np.asarray(t) for t in encoder_layer_outputs(encoder)(x, training=False)]
    assert len(layers) == 5
    expected = {
        "embeddings": layers[0], "second_to_last": layers[3], "last": layers[4],
        "weighted_sum_all": np.mean(layers[1:], axis=0),  # softmax of zeros: equal weights
        "sum_last_four": np.sum(layers[1:], axis=0),
        "concat_last_four": np.concatenate(layers[1:], axis=-1),
    }
    for name in LAYER_COMBINATIONS:
        got = np.asarray(LayerCombination(name)(layers))
        np.testing.assert_allclose(got, expected[name], rtol=1e-5, atol=1e-5, err_msg=name)
    model = FeatureBasedTagger(encoder, 5, "concat_last_four", lstm_units=8)
    assert model(x)["logits"].shape == (2, 7, 5)
    assert model.get_layer("layer_combination").output.shape[-1] == 4 * CONFIG.hidden_size


def test_only_combination_bilstm_and_classifier_train(encoder):
    model = FeatureBasedTagger(encoder, 3, "weighted_sum_all", lstm_units=8, lstm_layers=2)
    names = sorted({v.path.split("/")[0] for v in model.trainable_variables})
    assert names == ["bilstm_0", "bilstm_1", "layer_combination", "token_classifier"]
    encoder_before = [np.array(v) for v in encoder.weights]
    x, labels = _inputs(), np.ones((2, 7), np.int32)
    optimizer = keras.optimizers.Adam(1e-2)
    losses = []
    for _ in range(5):
        with tf.GradientTape() as tape:
            loss = keras.ops.mean(keras.losses.sparse_categorical_crossentropy(
                labels, model(x, training=True)["logits"], from_logits=True))
        optimizer.apply(tape.gradient(loss, model.trainable_variables), model.trainable_variables)
        losses.append(float(loss))
    assert losses[-1] < losses[0]
    for before, after in zip(encoder_before, encoder.weights):
        np.testing.assert_array_equal(before, np.array(after))


def test_encoder_has_no_dropout_and_padding_does_not_leak(encoder):
    model = FeatureBasedTagger(encoder, 3, "last", lstm_units=8, dropout_rate=0.0)
    x = _inputs(padding=2)
    a = np.asarray(model(x, training=True)["logits"])
    np.testing.assert_allclose(a, np.asarray(model(x, training=True)["logits"]), atol=1e-6)
    longer = {k: np.pad(v, ((0, 0), (0, 3))) for k, v in x.items()}
    b = np.asarray(model(longer)["logits"])
    np.testing.assert_allclose(a[0], b[0, :7], atol=1e-5)
    np.testing.assert_allclose(a[1, :5], b[1, :5], atol=1e-5)


def test_config_round_trip_and_too_few_layers(encoder):
    model = FeatureBasedTagger(encoder, 4, "concat_last_four", lstm_units=6, lstm_layers=1)
    clone = FeatureBasedTagger.from_config(model.get_config())
    assert clone.get_config()["layer_combination"] == "concat_last_four"
    assert not clone.encoder.trainable and len(clone.trainable_variables) == 8
    shallow = BertEncoder(CONFIG.replace(num_hidden_layers=2))
    with pytest.raises(ValueError, match="sum_last_four needs an encoder of at least 4 layers"):
        FeatureBasedTagger(shallow, 3, "sum_last_four")
    with pytest.raises(ValueError, match="must be one of"):
        FeatureBasedTagger(shallow, 3, "first")
