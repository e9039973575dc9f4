"""Our GPT encoder on its own: the original's LM loss restated in NumPy,
no leak from later tokens, right padding, the encoder interface, the special
rows as fine-tuning weights, serialisation."""

import keras
import numpy as np
import pytest

from families.gpt.double_heads import GPTDoubleHeads
from families.gpt.encoder import GPTEncoder
from families.gpt.language_model import GPTLanguageModel
from modeling.encoder_interface import check_encoder
from tests.families.gpt.model_reference import TINY, inputs, original_lm_loss

# float32 log-softmax over ~170 rows of logits of magnitude < 10: a few ulp of
# 10 per term, far inside 1e-5 of losses near 5 (the figure).
LOSS_BOUND = 1e-5


def seeded_encoder(config=TINY, seed=7):
    """An encoder whose every weight is random (LayerNorms too), so that no
    part of it can hide a difference."""
    keras.utils.set_random_seed(seed)
    encoder = GPTEncoder(config)
    rng = np.random.default_rng(seed)
    for variable in encoder.weights:
        variable.assign(rng.normal(0.0, 0.2, variable.shape).astype("float32")
                        + (1.0 if variable.path.endswith("gamma") else 0.0))
    return encoder


@pytest.fixture(scope="module")
def encoder():
    return seeded_encoder()


def test_auxiliary_loss_is_the_originals_joint_softmax(encoder):
    word_ids, mask = inputs(np.random.default_rng(1), (4, 12), lengths=(12, 9, 5, 2))
    features = {"input_word_ids": word_ids, "input_mask": mask}
    outputs = encoder(features)
    tables = [t.embeddings.numpy() for t in encoder.embeddings.tables()]
    we = np.concatenate(tables[:-1] + [tables[-1][:12]])  # the original cuts positions to its n_ctx
    expected = original_lm_loss(outputs["sequence_output"].numpy(), we, word_ids, mask)
    loss = keras.ops.convert_to_numpy(encoder.auxiliary_loss(features, outputs))
    assert loss.shape == (4,) and loss.dtype == np.float32
    np.testing.assert_allclose(loss, expected, rtol=0, atol=LOSS_BOUND)
    # Hugging Face's head (tokens and specials only) gives another loss.
    words_only = original_lm_loss(outputs["sequence_output"].numpy(), np.concatenate(tables[:-1]),
                                  word_ids, mask)
    assert np.abs(words_only - expected).max() > 100 * LOSS_BOUND


def test_later_tokens_change_nothing_before_them(encoder):
    word_ids, mask = inputs(np.random.default_rng(2), (2, 10))
    before = encoder({"input_word_ids": word_ids, "input_mask": mask})
    for t in (0, 4, 9):
        changed = word_ids.copy()
        changed[:, t] = (changed[:, t] + 1) % TINY.vocab_size
        after = encoder({"input_word_ids": changed, "input_mask": mask})
        for name, x, y in [("sequence_output", before["sequence_output"], after["sequence_output"])] + [
                (f"block {i}", a, b) for i, (a, b) in enumerate(zip(before["encoder_outputs"],
                                                                    after["encoder_outputs"]))]:
            x, y = np.asarray(x), np.asarray(y)
            assert np.array_equal(x[:, :t], y[:, :t]), (name, t)
            assert np.abs(x[:, t:] - y[:, t:]).max() > 1e-3, (name, t)  # the change is seen from t on


def test_right_padding_changes_no_real_token(encoder):
    word_ids, mask = inputs(np.random.default_rng(3), (2, 8))
    short = encoder({"input_word_ids": word_ids, "input_mask": mask})
    padded_ids = np.concatenate([word_ids, np.full((2, 5), 5, np.int32)], axis=1)
    padded_mask = np.concatenate([mask, np.zeros((2, 5), np.int32)], axis=1)
    padded = encoder({"input_word_ids": padded_ids, "input_mask": padded_mask})
    np.testing.assert_allclose(np.asarray(padded["sequence_output"])[:, :8], short["sequence_output"],
                               rtol=0, atol=1e-6)
    np.testing.assert_allclose(padded["pooled_output"], short["pooled_output"], rtol=0, atol=1e-6)


def test_follows_the_encoder_interface_without_type_ids(encoder):
    check_encoder(encoder)
    assert set(encoder.input) == {"input_word_ids", "input_mask"}
    assert len(encoder.output["encoder_outputs"]) == TINY.n_layer


def test_special_rows_are_fine_tuning_weights():
    special_rows = GPTEncoder(TINY).fine_tuning_weights
    assert [v.path for v in special_rows] == ["embeddings/special_embeddings/embeddings"]
    pretrained = GPTEncoder(TINY.replace(n_special=0))
    assert pretrained.fine_tuning_weights == []
    assert pretrained.lm_logits(np.zeros((1, 3, TINY.n_embd), np.float32)).shape == (1, 3, TINY.n_vocab)
    assert TINY.replace(n_special=0).for_fine_tuning().n_special == 3


def test_special_ids_read_the_special_rows(encoder):
    ids = np.array([[TINY.n_vocab - 1, TINY.n_vocab, TINY.n_vocab + 2]], np.int32)
    x = encoder.embeddings(ids, np.zeros_like(ids))
    rows = np.concatenate([encoder.embeddings.word_embeddings.embeddings.numpy()[-1:],
                           encoder.embeddings.special_embeddings.embeddings.numpy()[[0, 2]]])
    position = encoder.embeddings.position_embeddings.embeddings.numpy()[0]
    np.testing.assert_array_equal(np.asarray(x)[0], rows + position)


def test_rebuilt_from_its_config(encoder):
    rebuilt = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(encoder))
    assert isinstance(rebuilt, GPTEncoder) and rebuilt.config == TINY
    assert [v.path for v in rebuilt.weights] == [v.path for v in encoder.weights]


def test_language_model_scores_with_the_tied_head():
    model = GPTLanguageModel(TINY, joint=True)
    word_ids, mask = inputs(np.random.default_rng(4), (2, 6))
    features = {"input_word_ids": word_ids, "input_mask": mask}
    logits = model(features)["lm_logits"]
    assert logits.shape == (2, 6, TINY.vocab_size + 6) and logits.dtype == "float32"
    expected = model.encoder.lm_logits(model.encoder(features)["sequence_output"], joint=True)
    np.testing.assert_array_equal(logits, expected)
    assert len(model.weights) == len(model.encoder.weights)
    rebuilt = GPTLanguageModel.from_config(model.get_config())
    assert rebuilt.joint and rebuilt.config == TINY


def test_double_heads_rebuilt_from_their_config():
    model = GPTDoubleHeads(GPTEncoder(TINY))
    rebuilt = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(model))
    assert isinstance(rebuilt, GPTDoubleHeads) and rebuilt.config == TINY
    assert [v.path for v in rebuilt.weights] == [v.path for v in model.weights]
