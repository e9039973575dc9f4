"""Hugging Face `openai-gpt` directories: those we write load in
`transformers` with every weight in place and compute what ours does; those
`transformers` writes (safetensors, or `pytorch_model.bin`, read without torch)
load into ours bit for bit."""

import json
import os

import numpy as np
import pytest

from checkpoints import ours
from families.gpt.checkpoints import huggingface
from families.gpt.checkpoints.convert import convert, read_model
from families.gpt.checkpoints.names import from_ours
from tests.families.gpt.checkpoint_models import random_model, weights_of
from tests.families.gpt.model_reference import TINY, hf_model, hf_tensors, inputs, run_hf
from tests.families.gpt.model_tolerance import assert_close

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def test_what_we_write_loads_in_transformers(tmp_path):
    model = random_model(heads=True)
    ours.save_weights(model, str(tmp_path / "ours"))
    convert(str(tmp_path / "ours"), str(tmp_path / "hf"), "hf", TINY)
    hf, info = transformers.OpenAIGPTDoubleHeadsModel.from_pretrained(str(tmp_path / "hf"),
                                                                      output_loading_info=True)
    assert not any(info.values()), info
    word_ids, mask = inputs(np.random.default_rng(5), (2, 2, 10), lengths=(10, 7, 3, 10))
    mc_token_ids = mask.sum(-1) - 1
    theirs = run_hf(hf.eval(), word_ids, mask, mc_token_ids)
    mine = model({"input_word_ids": word_ids, "input_mask": mask, "mc_token_ids": mc_token_ids})
    assert_close(TINY, 10, mine["lm_logits"], theirs["logits"], "lm_logits")
    assert_close(TINY, 10, mine["mc_logits"], theirs["mc_logits"], "mc_logits")


def test_a_language_model_is_written_as_one(tmp_path):
    encoder = random_model(heads=False)
    huggingface.write_dir(from_ours(weights_of(encoder), TINY.n_layer), TINY, str(tmp_path))
    hf, info = transformers.OpenAIGPTLMHeadModel.from_pretrained(str(tmp_path), output_loading_info=True)
    assert not any(info.values()), info
    assert hf.config.vocab_size == TINY.vocab_size and hf.config.architectures == ["OpenAIGPTLMHeadModel"]


@pytest.mark.parametrize("weights_file", ["model.safetensors", "pytorch_model.bin"])
def test_what_transformers_writes_loads_into_ours(tmp_path, weights_file):
    hf = hf_model(TINY)
    hf.save_pretrained(str(tmp_path))
    config_file = tmp_path / "config.json"  # as the hub's openai-gpt: no n_special
    config_file.write_text(json.dumps({k: v for k, v in json.loads(config_file.read_text()).items()
                                       if k != "n_special"}))
    if weights_file == "pytorch_model.bin":
        tensors, _ = huggingface.from_hf(hf_tensors(hf), 0)
        huggingface.write_torch_bin(tensors, str(tmp_path))
        os.remove(tmp_path / "model.safetensors")
    config = huggingface.read_config(str(tmp_path))
    assert config == TINY.replace(n_vocab=TINY.vocab_size, n_special=0)  # no n_special: all rows are tokens
    model, report = read_model(str(tmp_path), config)
    assert report.format == "gpt_hf" and not report.missing and not report.unused
    expected = hf_tensors(hf)
    mine = weights_of(model)
    np.testing.assert_array_equal(mine["embeddings/word_embeddings/embeddings"],
                                  expected["transformer.tokens_embed.weight"])
    np.testing.assert_array_equal(mine["transformer_layer_1/self_attention/value/kernel"],
                                  expected["transformer.h.1.attn.c_attn.weight"][:, 2 * TINY.n_embd:])
    np.testing.assert_array_equal(mine["choice_scorer/dense/kernel"],
                                  expected["multiple_choice_head.summary.weight"].T)


def test_tensors_of_no_gpt_layout_are_reported_unused(tmp_path):
    hf = transformers.OpenAIGPTForSequenceClassification(
        transformers.OpenAIGPTConfig(**{k: v for k, v in huggingface.hf_config(TINY).items()
                                        if k != "architectures"}))
    hf.save_pretrained(str(tmp_path))
    _, report = read_model(str(tmp_path), huggingface.read_config(str(tmp_path)))
    assert report.unused == ["score.weight"] and not report.missing
