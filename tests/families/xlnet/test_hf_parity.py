"""Random weights, float32: our XLNet backbone and LM head against Hugging Face's
`XLNetLMHeadModel` (torch, CPU, eval), content and query streams, padding,
segments with `<cls>`, perm_mask + target_mapping, bi_data, memory, tied biases,
on the TensorFlow backend here and on JAX in a subprocess."""

import json
import os
import sys

import numpy as np
import pytest

from checkpoints.loader import CheckpointMismatchError
from families.xlnet.checkpoints.hf_names import XLNetWeightsError
from families.xlnet.checkpoints.parts import load_hf_xlnet
from tests import warm_python
from tests.conftest import JAX_CPU, ROOT
from tests.families.xlnet.cases import TINY, build_ours, make_cases, permutation_inputs, run_ours
from tests.families.xlnet.tolerance import float32_bound

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
from tests.families.xlnet.hf_reference import hf_model, hf_tensors, run_hf  # noqa: E402

CASES = make_cases()
ISSUE_BOUND = 1e-5  # issue 19's acceptance figure, absolute


@pytest.fixture(scope="module")
def references():
    """name -> (HF model, HF outputs per step)."""
    out = {}
    for name, (config, steps) in CASES.items():
        model = hf_model(config)
        out[name] = (model, run_hf(model, steps))
    return out


def assert_matches(config, steps, ours, theirs):
    assert len(ours) == len(theirs)
    mlen = 0
    for inputs, mine, reference in zip(steps, ours, theirs):
        assert mine.keys() == reference.keys()
        klen = mlen + inputs["input_ids"].shape[1]
        for key in reference:
            diff = float(np.abs(mine[key] - reference[key]).max())
            assert diff <= float32_bound(config, klen, reference[key]), (key, diff)
            assert diff <= ISSUE_BOUND, (key, diff)
        mlen = mine["new_mems_0"].shape[1] if "new_mems_0" in mine else 0


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_hugging_face(name, references):
    config, steps = CASES[name]
    model, theirs = references[name]
    backbone, head = build_ours(config)
    load_hf_xlnet(backbone, hf_tensors(model), head)
    ours = run_ours(backbone, head, steps)
    assert_matches(config, steps, ours, theirs)
    if config.mem_len:
        assert all(f"new_mems_{i}" in step for step in ours for i in range(config.n_layer))
    if "target_mapping" in steps[0]:
        assert "query_output" in ours[0]


def test_the_comparison_sees_a_wrong_weight(references):
    """The bound is tight enough to catch one layer's bias off by 1e-3."""
    config, steps = CASES["two_stream"]
    model, theirs = references["two_stream"]
    tensors = hf_tensors(model)
    tensors["transformer.layer.1.rel_attn.r_s_bias"] = tensors["transformer.layer.1.rel_attn.r_s_bias"] + 1e-3
    backbone, head = build_ours(config)
    load_hf_xlnet(backbone, tensors, head)
    with pytest.raises(AssertionError):
        assert_matches(config, steps, run_ours(backbone, head, steps), theirs)


def test_weight_errors_name_the_tensor_and_shapes(references):
    model, _ = references["two_stream"]
    tensors = hf_tensors(model)
    tensors["transformer.layer.0.rel_attn.q"] = tensors["transformer.layer.0.rel_attn.q"][:, :2]
    backbone, head = build_ours(TINY)
    with pytest.raises(CheckpointMismatchError, match=r"layer_0/rel_attn/q: checkpoint has shape \[32, 2, 8\], "
                                                      r"model expects \[32, 4, 8\]"):
        load_hf_xlnet(backbone, tensors, head)
    backbone, head = build_ours(TINY.replace(untie_r=False))
    with pytest.raises(XLNetWeightsError, match="untie_r is off but layer.*r_w_bias differs"):
        load_hf_xlnet(backbone, hf_tensors(model), head)


@pytest.mark.slow
def test_jax_backend_matches_hugging_face(tmp_path, references):
    pytest.importorskip("jax")
    for name, (config, steps) in CASES.items():
        backbone, head = build_ours(config)
        load_hf_xlnet(backbone, hf_tensors(references[name][0]), head)
        backbone.save_weights(str(tmp_path / f"{name}.backbone.weights.h5"))
        np.save(tmp_path / f"{name}.head_bias.npy", np.asarray(head.bias))
        config.to_json_file(str(tmp_path / f"{name}.config.json"))
        for s, inputs in enumerate(steps):
            np.savez(tmp_path / f"{name}.step{s}.npz", **inputs)
    (tmp_path / "cases.json").write_text(json.dumps({n: len(steps) for n, (_, steps) in CASES.items()}))
    script = os.path.join(ROOT, "tests", "families", "xlnet", "backend_forward.py")
    warm_python.run([sys.executable, script, str(tmp_path)], check=True,
                    env={**os.environ, **JAX_CPU})
    for name, (config, steps) in CASES.items():
        ours = [dict(np.load(tmp_path / f"{name}.step{s}.out.npz")) for s in range(len(steps))]
        assert all(str(step.pop("backend")) == "jax" for step in ours)
        assert_matches(config, steps, ours, references[name][1])


def test_uni_at_batch_2_matches_hugging_face_row_by_row():
    """Hugging Face's attn_type="uni" fails at batch > 1 with a mask, so each of
    our rows is compared with its own batch-1 run there, memory included."""
    config = TINY.replace(attn_type="uni", mem_len=8, reuse_len=6)
    rng = np.random.default_rng(23)
    steps = [permutation_inputs(rng)[0], permutation_inputs(rng)[0]]
    model = hf_model(config)
    backbone, head = build_ours(config)
    load_hf_xlnet(backbone, hf_tensors(model), head)
    ours = run_ours(backbone, head, steps)
    for b in range(steps[0]["input_ids"].shape[0]):
        row_steps = [{k: v[b:b + 1] for k, v in step.items()} for step in steps]
        row_ours = [{k: v[b:b + 1] for k, v in step.items()} for step in ours]
        assert_matches(config, row_steps, row_ours, run_hf(model, row_steps))


def test_a_bare_xlnet_model_loads_and_matches(references):
    """`XLNetModel` tensors carry no `transformer.` prefix and no LM head."""
    config, steps = CASES["two_stream"]
    bare = references["two_stream"][0].transformer
    backbone, _ = build_ours(config)
    load_hf_xlnet(backbone, {k: v.numpy() for k, v in bare.state_dict().items()})
    inputs = {k: torch.from_numpy(v) for k, v in steps[0].items()}
    with torch.no_grad():
        theirs = bare(input_ids=inputs["input_ids"].long(), token_type_ids=inputs["segment_ids"].long(),
                      input_mask=inputs["input_mask"], perm_mask=inputs["perm_mask"],
                      target_mapping=inputs["target_mapping"]).last_hidden_state.numpy()
    ours = np.asarray(backbone(steps[0])["query_output"])
    assert np.abs(ours - theirs).max() <= min(ISSUE_BOUND, float32_bound(config, 10, theirs))
