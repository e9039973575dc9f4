"""Random weights, float32: our GPT against `transformers`' OpenAIGPTModel
(every block's hidden states), OpenAIGPTLMHeadModel (LM logits) and
OpenAIGPTDoubleHeadsModel (LM and multiple-choice logits), with right
padding and special-row ids, on the TensorFlow backend here and on JAX in a
subprocess."""

import os
import sys

import numpy as np
import pytest

from families.gpt.double_heads import GPTDoubleHeads
from families.gpt.encoder import GPTEncoder
from families.gpt.lm_loss import next_token_loss
from tests import warm_python
from tests.conftest import JAX_CPU, ROOT
from tests.families.gpt.model_cases import run_choices, run_single, save_case
from tests.families.gpt.model_tolerance import assert_close

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
from tests.families.gpt.model_reference import TINY, hf_model, hf_tensors, inputs, load_hf, run_hf  # noqa: E402

SEQ = 11


@pytest.fixture(scope="module")
def case():
    """(HF tensors, [batch, seq] inputs, [batch, choices, seq] inputs, HF
    outputs by class, HF's LM head model)."""
    import transformers
    model = hf_model(TINY)
    tensors = hf_tensors(model)
    lm = transformers.OpenAIGPTLMHeadModel(model.config).eval()
    lm.load_state_dict({k: v for k, v in model.state_dict().items() if not k.startswith("multiple_choice")})
    rng = np.random.default_rng(34)
    # One flat shape for both (6 rows of SEQ), so JAX compiles each op once.
    ids, mask = inputs(rng, (6, SEQ), lengths=(SEQ, 7, 3, 10, 1, SEQ))
    choice_ids, choice_mask = inputs(rng, (2, 3, SEQ), lengths=(SEQ, 6, 4, 8, 9, 2))
    mc_token_ids = choice_mask.sum(-1) - 1
    single = {"input_word_ids": ids, "input_mask": mask}
    choices = {"input_word_ids": choice_ids, "input_mask": choice_mask, "mc_token_ids": mc_token_ids}
    references = {"base": run_hf(model.transformer, ids, mask), "lm": run_hf(lm, ids, mask),
                  "double": run_hf(model, choice_ids, choice_mask, mc_token_ids)}
    return tensors, single, choices, references, lm


def ours_from(tensors):
    model = GPTDoubleHeads(GPTEncoder(TINY))
    load_hf(model, tensors)
    return model


def assert_matches(single_out, choices_out, references):
    """{output: max |difference|} after asserting each against its reference."""
    base, lm, double = references["base"], references["lm"], references["double"]
    diffs = {}
    for i in range(TINY.n_layer):
        diffs[f"block_{i}"] = assert_close(TINY, SEQ, single_out[f"block_{i}"], base["hidden_states"][i + 1],
                                           f"block {i}")
    diffs["sequence_output"] = assert_close(TINY, SEQ, single_out["sequence_output"], base["last_hidden_state"],
                                            "sequence_output")
    diffs["lm_logits"] = assert_close(TINY, SEQ, single_out["lm_logits"], lm["logits"], "lm_logits")
    diffs["double_lm_logits"] = assert_close(TINY, SEQ, choices_out["lm_logits"], double["logits"], "double lm")
    diffs["mc_logits"] = assert_close(TINY, SEQ, choices_out["mc_logits"], double["mc_logits"], "mc_logits")
    return diffs


def test_matches_hugging_face(case):
    tensors, single, choices, references, _ = case
    model = ours_from(tensors)
    diffs = assert_matches(run_single(model, single), run_choices(model, choices), references)
    print("max |ours - Hugging Face| (TensorFlow):", diffs)


def test_pooled_output_is_the_state_at_the_last_real_token(case):
    tensors, single, _, references, _ = case
    out = run_single(ours_from(tensors), single)
    last = single["input_mask"].sum(1) - 1
    expected = references["base"]["last_hidden_state"][np.arange(len(last)), last]
    assert_close(TINY, SEQ, out["pooled_output"], expected, "pooled_output")


def test_token_head_loss_is_hugging_faces(case):
    """`next_token_loss` over Hugging Face's head equals its LM loss (a mean
    over every predicted token of the batch: rows without padding, so it is
    the mean of our per-row means)."""
    tensors, single, _, _, lm = case
    ids = single["input_word_ids"][[0, 5]]
    model = ours_from(tensors)
    outputs = model.encoder({"input_word_ids": ids, "input_mask": np.ones_like(ids)})
    loss = next_token_loss(model.encoder.lm_logits(outputs["sequence_output"]), ids, np.ones_like(ids))
    with torch.no_grad():
        theirs = lm(torch.from_numpy(ids.astype(np.int64)), labels=torch.from_numpy(ids.astype(np.int64))).loss
    assert abs(float(np.mean(loss)) - float(theirs)) <= 1e-5


def test_the_comparison_sees_a_wrong_weight(case):
    tensors, single, choices, references, _ = case
    """One element of the last block's output bias off by 1e-3 (one only: a
    shift of every element would vanish in the LayerNorm after it)."""
    name = "transformer.h.1.mlp.c_proj.bias"
    tensors = dict(tensors, **{name: tensors[name] + 1e-3 * (np.arange(TINY.n_embd) == 0)})
    model = ours_from(tensors)
    with pytest.raises(AssertionError):
        assert_matches(run_single(model, single), run_choices(model, choices), references)


@pytest.mark.slow
def test_jax_backend_matches_hugging_face(case, tmp_path):
    pytest.importorskip("jax")
    tensors, single, choices, references, _ = case
    save_case(ours_from(tensors), str(tmp_path), single, choices)
    script = os.path.join(ROOT, "tests", "families", "gpt", "model_backend_forward.py")
    warm_python.run([sys.executable, script, str(tmp_path)], check=True,
                    env={**os.environ, **JAX_CPU})
    single_out = dict(np.load(tmp_path / "single.out.npz"))
    choices_out = dict(np.load(tmp_path / "choices.out.npz"))
    assert str(single_out.pop("backend")) == str(choices_out.pop("backend")) == "jax"
    diffs = assert_matches(single_out, choices_out, references)
    print("max |ours - Hugging Face| (JAX):", diffs)
    tf_out = run_single(ours_from(tensors), single)
    for name in ("joint_lm_logits", "auxiliary_loss"):
        assert_close(TINY, SEQ, single_out[name], tf_out[name], name)
