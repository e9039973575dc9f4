"""The left-to-right ablation: a token's representation never sees later tokens,
the pooled vector is the last real token's, and Keras configs of earlier
versions rebuild the same causal model; its "+ BiLSTM" variant adds right
context above the causal layers at fine-tuning only."""

import keras
import numpy as np
import pytest

from families.bert.encoder import BertEncoder
from families.bert.pretraining.task import PretrainingTask
from tasks.classification.model import SequenceClassifier
from tests.causality import (CUT, SEQ, inputs, outputs_before_and_after_changing_the_tail,
                             sees_only_earlier_tokens)
from tests.pretraining_records import TINY, write_records


def test_ltr_task_builds_a_causal_encoder_that_ignores_later_tokens(tmp_path):
    path = write_records(tmp_path / "ltr.tfrecord", count=2, seq_length=SEQ, predictions=SEQ,
                         nsp=False)
    model = PretrainingTask(TINY, path, SEQ, 20, objective="ltr").build_model()
    assert model.encoder.causal_attention and sees_only_earlier_tokens(model.encoder)


def test_bidirectional_encoder_does_see_later_tokens():
    before, after = outputs_before_and_after_changing_the_tail(BertEncoder(TINY))
    assert np.abs(before[:, :, :CUT + 1] - after[:, :, :CUT + 1]).max() > 1e-3


def pooled(encoder, word_ids, input_mask):
    return np.asarray(encoder({"input_word_ids": word_ids, "input_mask": input_mask,
                               "input_type_ids": np.zeros_like(word_ids)})["pooled_output"])


def test_causal_pooled_output_is_the_last_real_token_of_the_first_sequence():
    """[CLS] sees only itself under a causal mask: the pooled vector comes from
    the last real token, and padding (or a packed row's later sequences) never
    reaches it."""
    encoder = BertEncoder(TINY, causal_attention=True)
    rng = np.random.default_rng(1)
    ids = rng.integers(5, TINY.vocab_size, (3, SEQ)).astype("int32")
    lengths = (SEQ, 11, 9)  # full row, padded row, packed row
    mask = np.zeros((3, SEQ), "int32")
    mask[0], mask[1, :11] = 1, 1
    mask[2, :9], mask[2, 9:14] = 1, 2
    last = np.array(lengths) - 1
    rows = np.arange(3)
    base = pooled(encoder, ids, mask)

    changed = ids.copy()
    changed[rows, last] = (ids[rows, last] + 1 - 5) % (TINY.vocab_size - 5) + 5
    assert (np.abs(pooled(encoder, changed, mask) - base).max(axis=1) > 1e-4).all()

    beyond = ids.copy()
    for row, length in enumerate(lengths):
        beyond[row, length:] = rng.integers(5, TINY.vocab_size, SEQ - length)
    np.testing.assert_allclose(pooled(encoder, beyond, mask), base, atol=1e-6)


def _encoder_config(values):
    """The BertEncoder's entry in a serialized task model."""
    if values.get("class_name") == "BertEncoder":
        return values["config"]
    return _encoder_config(values["config"]["encoder"])


def test_keras_configs_of_earlier_versions_rebuild_the_same_causal_model():
    """Earlier versions kept `causal_attention` beside the encoder's config (an
    older export_meta.json's task_model); it still gives the causal model."""
    model = SequenceClassifier(BertEncoder(TINY.replace(causal_attention=True)), 3)
    serialized = keras.saving.serialize_keras_object(model)
    assert _encoder_config(serialized)["config"]["causal_attention"] is True
    old = keras.saving.serialize_keras_object(model)
    encoder = _encoder_config(old)
    del encoder["config"]["causal_attention"]
    encoder["causal_attention"] = True
    ids = np.random.default_rng(2).integers(5, TINY.vocab_size, (2, SEQ)).astype("int32")
    expected = np.asarray(model(inputs(ids))["logits"])
    for config in (serialized, old):
        rebuilt = keras.saving.deserialize_keras_object(config)
        rebuilt.set_weights(model.get_weights())
        assert rebuilt.encoder.causal_attention
        np.testing.assert_allclose(np.asarray(rebuilt(inputs(ids))["logits"]), expected, atol=1e-6)


def test_fine_tuning_bilstm_gives_a_causal_encoder_right_context_above_its_causal_layers():
    """The paper's "+ BiLSTM": the Transformer layers stay left-only, the BiLSTM
    over them sees both ways, and the pooled vector still reads the last real token."""
    encoder = BertEncoder(TINY.replace(causal_attention=True, fine_tuning_bilstm=True))
    assert sees_only_earlier_tokens(encoder)  # every Transformer layer
    ids = np.random.default_rng(3).integers(5, TINY.vocab_size, (2, SEQ)).astype("int32")
    changed = ids.copy()
    changed[:, CUT + 1:] = (ids[:, CUT + 1:] + 1 - 5) % (TINY.vocab_size - 5) + 5
    before, after = (np.asarray(encoder(inputs(x))["sequence_output"])[:, :CUT + 1] for x in (ids, changed))
    half = TINY.hidden_size // 2  # forward LSTM units, then backward
    np.testing.assert_allclose(before[..., :half], after[..., :half], atol=1e-6)
    assert (np.abs(before[..., half:] - after[..., half:]).max(axis=-1) > 1e-6).all()


def test_fine_tuning_bilstm_weights_come_from_fine_tuning_not_the_checkpoint(tmp_path):
    from checkpoints.ours import save_weights
    from checkpoints.pretrained import load_pretrained
    pretrained = BertEncoder(TINY.replace(causal_attention=True))
    save_weights(pretrained, str(tmp_path))
    model = SequenceClassifier(BertEncoder(TINY.replace(causal_attention=True, fine_tuning_bilstm=True)), 2)
    bilstm = {v.path for v in model.encoder.fine_tuning_weights}
    assert bilstm and all(p.startswith("fine_tuning_bilstm/") for p in bilstm)
    report = load_pretrained(model, model.encoder, str(tmp_path))
    assert bilstm <= set(report.missing)
    np.testing.assert_array_equal(model.encoder.word_embeddings.numpy(), pretrained.word_embeddings.numpy())


def test_pretraining_and_checkpoint_formats_refuse_the_fine_tuning_bilstm():
    from families.bert.pretrainer import BertPretrainer
    with pytest.raises(ValueError, match="fine_tuning_bilstm"):
        BertPretrainer(BertEncoder(TINY.replace(causal_attention=True, fine_tuning_bilstm=True)), "ltr")


def test_fine_tuning_bilstm_is_written_only_when_set():
    assert "fine_tuning_bilstm" not in TINY.to_dict()
    assert TINY.replace(fine_tuning_bilstm=True).to_dict()["fine_tuning_bilstm"] is True
    with pytest.raises(ValueError, match="must be even"):
        TINY.replace(hidden_size=33, num_attention_heads=3, fine_tuning_bilstm=True)
