"""Converters: ours -> TF1 -> ours and ours -> HF -> ours are lossless (heads
included); the original google-research code and `transformers` read what we write."""

import os
import sys

import numpy as np
import pytest

from families.bert.checkpoints.export_formats import to_hf, to_tf1
from families.bert.checkpoints.huggingface import write_hf_dir
from checkpoints.loader import CheckpointMismatchError, load_into
from checkpoints.ours import save_weights
from checkpoints.tf_checkpoint import write_name_based
from families.bert.config import BertConfig
from families.bert.encoder import BertEncoder
from families.bert.pretrainer import BertPretrainer
from tests import warm_python
from tests.conftest import ROOT

CONFIG = BertConfig(vocab_size=99, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                    intermediate_size=37, max_position_embeddings=40, hidden_act="gelu_new")


def _random_pretrainer(seed, config=CONFIG):
    model = BertPretrainer(BertEncoder(config))
    rng = np.random.default_rng(seed)
    for variable in model.weights:
        variable.assign(rng.normal(0, 0.2, variable.shape).astype("float32"))
    return model


def _inputs(batch=3, seq=12):
    rng = np.random.default_rng(0)
    mask = np.ones((batch, seq), np.int32)
    mask[0, 8:] = 0
    return {"input_word_ids": rng.integers(0, CONFIG.vocab_size, (batch, seq)).astype(np.int32),
            "input_mask": mask,
            "input_type_ids": (np.arange(seq)[None, :] >= 6).astype(np.int32).repeat(batch, 0),
            "masked_lm_positions": np.array([[1, 3, 5]] * batch, np.int32)}


def _assert_same_weights(a, b):
    assert [v.path for v in a.weights] == [v.path for v in b.weights]
    for x, y in zip(a.weights, b.weights):
        np.testing.assert_array_equal(np.asarray(x.numpy()), np.asarray(y.numpy()), err_msg=x.path)


def test_tf1_round_trip_is_lossless(tmp_path):
    source = _random_pretrainer(1)
    prefix = str(tmp_path / "bert_model.ckpt")
    write_name_based(to_tf1(source), prefix)
    restored = _random_pretrainer(2)
    report = load_into(restored, prefix, strict=True)
    assert report.format == "tf1" and not report.missing and not report.unused
    _assert_same_weights(source, restored)
    # A directory resolves to its latest checkpoint, as `--init_checkpoint=dir` users expect.
    assert load_into(_random_pretrainer(3), str(tmp_path), strict=True).format == "tf1"


def test_hf_round_trip_is_lossless(tmp_path):
    source = _random_pretrainer(1)
    write_hf_dir(to_hf(source), CONFIG, str(tmp_path))
    restored = _random_pretrainer(2)
    assert load_into(restored, str(tmp_path), strict=True).format == "hf"
    _assert_same_weights(source, restored)


def test_our_weights_round_trip_is_lossless(tmp_path):
    source = _random_pretrainer(1)
    save_weights(source, str(tmp_path))
    restored = _random_pretrainer(2)
    assert load_into(restored, str(tmp_path), strict=True).format == "ours"
    _assert_same_weights(source, restored)
    assert BertConfig.from_json_file(str(tmp_path / "bert_config.json")) == CONFIG


def test_original_google_research_code_reads_our_tf1_checkpoint(tmp_path):
    """bert-tensorflow's BertModel + MLM/NSP heads, fed our TF1 checkpoint, compute
    what our model computes: names, layouts and the NSP transpose are right."""
    pytest.importorskip("bert")
    source = _random_pretrainer(1)
    prefix = str(tmp_path / "bert_model.ckpt")
    write_name_based(to_tf1(source), prefix)
    # The original's "gelu" is the tanh approximation, our "gelu_new".
    CONFIG.replace(hidden_act="gelu").to_json_file(str(tmp_path / "bert_config.json"))
    inputs = _inputs()
    np.savez(tmp_path / "inputs.npz", **inputs)
    script = os.path.join(ROOT, "tests", "original_bert_forward.py")
    warm_python.run([sys.executable, script, prefix, str(tmp_path / "bert_config.json"),
                     str(tmp_path / "inputs.npz"), str(tmp_path / "out.npz")],
                    check=True, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "TF_USE_LEGACY_KERAS": "1"})
    theirs = np.load(tmp_path / "out.npz")
    ours = source(inputs)
    encoded = source.encoder({k: inputs[k] for k in ("input_word_ids", "input_mask", "input_type_ids")})
    mask = inputs["input_mask"].astype(bool)
    np.testing.assert_allclose(np.asarray(encoded["sequence_output"])[mask],
                               theirs["sequence_output"][mask], atol=1e-4)
    np.testing.assert_allclose(np.asarray(encoded["pooled_output"]), theirs["pooled_output"], atol=1e-4)
    mlm_log_probs = _log_softmax(np.asarray(ours["mlm_logits"]))
    np.testing.assert_allclose(mlm_log_probs.reshape(-1, CONFIG.vocab_size), theirs["mlm_log_probs"],
                               atol=1e-4)
    np.testing.assert_allclose(_log_softmax(np.asarray(ours["nsp_logits"])), theirs["nsp_log_probs"],
                               atol=1e-4)


def test_transformers_reads_our_hf_export_with_heads(tmp_path):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    source = _random_pretrainer(1, CONFIG.replace(hidden_act="gelu"))
    write_hf_dir(to_hf(source), source.encoder.config, str(tmp_path))
    reference = transformers.BertForPreTraining.from_pretrained(
        str(tmp_path), attn_implementation="eager").eval()
    inputs = _inputs()
    with torch.no_grad():
        theirs = reference(input_ids=torch.from_numpy(inputs["input_word_ids"]).long(),
                           attention_mask=torch.from_numpy(inputs["input_mask"]).long(),
                           token_type_ids=torch.from_numpy(inputs["input_type_ids"]).long())
    ours = source(inputs)
    their_mlm = np.take_along_axis(theirs.prediction_logits.numpy(),
                                   inputs["masked_lm_positions"][..., None], axis=1)
    np.testing.assert_allclose(np.asarray(ours["mlm_logits"]), their_mlm, atol=1e-4)
    np.testing.assert_allclose(np.asarray(ours["nsp_logits"]),
                               theirs.seq_relationship_logits.numpy(), atol=1e-4)


def test_shape_mismatch_names_variable_and_both_shapes(tmp_path):
    write_name_based(to_tf1(_random_pretrainer(1)), str(tmp_path / "ckpt"))
    other = BertPretrainer(BertEncoder(CONFIG.replace(vocab_size=120)))
    with pytest.raises(CheckpointMismatchError) as error:
        load_into(other, str(tmp_path / "ckpt"))
    message = str(error.value)
    assert "embeddings/word_embeddings/embeddings" in message
    assert "[99, 32]" in message and "[120, 32]" in message and "vocab_size" in message


def test_vocab_size_hint_only_when_the_vocabulary_dimension_differs(tmp_path):
    write_name_based(to_tf1(_random_pretrainer(1)), str(tmp_path / "ckpt"))
    other = BertPretrainer(BertEncoder(CONFIG.replace(hidden_size=36)))
    with pytest.raises(CheckpointMismatchError) as error:
        load_into(other, str(tmp_path / "ckpt"))
    message = str(error.value)
    assert "word_embeddings/embeddings: checkpoint has shape [99, 32], model expects [99, 36]" in message, message
    assert "(vocab_size differs" not in message


def test_missing_variables_are_listed_or_fatal_when_strict(tmp_path):
    encoder_only = BertEncoder(CONFIG)
    write_name_based(to_tf1(encoder_only), str(tmp_path / "ckpt"))
    report = load_into(_random_pretrainer(2), str(tmp_path / "ckpt"))
    assert "masked_lm/output_bias" in report.missing
    assert "next_sentence/dense/kernel" in report.missing
    assert "masked_lm/output_bias" in report.summary()
    with pytest.raises(CheckpointMismatchError, match="missing"):
        load_into(_random_pretrainer(2), str(tmp_path / "ckpt"), strict=True)


def test_unreadable_paths_fail_clearly(tmp_path):
    with pytest.raises(FileNotFoundError, match="checkpoint not found"):
        load_into(BertEncoder(CONFIG), str(tmp_path / "nope"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(CheckpointMismatchError, match="not a checkpoint"):
        load_into(BertEncoder(CONFIG), str(tmp_path / "empty"))


def _log_softmax(x):
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))
