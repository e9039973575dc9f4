"""Random weights, float32: our XLNet backbone against the TF Model Garden's
`official.nlp.modeling.networks.XLNetBase` (tf-models-official), weights copied
from its object checkpoint (`tf.train.Checkpoint(encoder=network)`) through
`checkpoints.loader.load_into` and `families.xlnet.checkpoints.model_garden_names`: padding, segment ids with
`<cls>`, perm_mask (+ target_mapping for the query stream), tied and untied
biases, clamp_len, bi_data, memory in and out.

Conventions translated, not compared: Model Garden's `input_mask` is 1 = real
token and its `permutation_mask` 1 = may attend (both the inverse of the
original's, which we keep); `use_cls_mask=False` is the original's segment rule
(`<cls>` is simply another segment; `True` is a Model Garden legacy variant).
What its API cannot show: `XLNetBase` returns only one stream, the query stream
when built with `two_stream=True` (the content stream then stays inside), the
content stream otherwise; so the content stream is compared on a
`two_stream=False` network (with the permutation mask too, which the content
stream also obeys) and the query stream on a `two_stream=True` one.
`attn_type="uni"` is compared with an input mask given (as every input here
carries one): Model Garden drops its causal mask when neither an input nor a
permutation mask is given, where the original and we keep it. `same_length` is
not compared (Model Garden has no such option; test_hf_parity covers it).
"""

import os
import tempfile

import numpy as np
import pytest
import tensorflow as tf

from checkpoints.loader import CheckpointMismatchError, load_into
from families.xlnet.backbone import XLNetBackbone
from tests.families.xlnet.cases import TINY, fine_tuning_inputs, permutation_inputs
from tests.families.xlnet.tolerance import float32_bound

pytest.importorskip("official.nlp.modeling.networks")
from tests.families.xlnet.model_garden_reference import model_garden_network, run_model_garden  # noqa: E402

ISSUE_BOUND = 1e-5  # issue 19's acceptance figure, absolute


def ours_from(network, config):
    backbone = XLNetBackbone(config)
    backbone.build()
    with tempfile.TemporaryDirectory() as directory:
        prefix = tf.train.Checkpoint(encoder=network).write(os.path.join(directory, "ckpt"))
        report = load_into(backbone, prefix)
    # Every tensor taken; only a network built without two_stream lacks mask_emb.
    assert report.format == "xlnet_model_garden" and not report.unused
    assert report.missing in ([], [backbone.mask_emb.path]), report.missing
    return backbone


def assert_close(config, klen, ours, theirs):
    diff = float(np.abs(np.asarray(ours) - np.asarray(theirs)).max())
    assert diff <= float32_bound(config, klen, np.asarray(theirs)), diff
    assert diff <= ISSUE_BOUND, diff


CONTENT_CASES = {
    "padding_segments": (TINY, False),
    "permutation_mask": (TINY, True),
    "tied_biases_relu": (TINY.replace(untie_r=False, ff_activation="relu"), True),
    "clamp_len": (TINY.replace(clamp_len=6), True),
    "bi_data": (TINY.replace(bi_data=True), True),
    "uni": (TINY.replace(attn_type="uni"), True),
}
QUERY_CASES = {
    "untied": TINY,
    "tied": TINY.replace(untie_r=False),
    "bi_data_clamped": TINY.replace(bi_data=True, clamp_len=6),
    "uni": TINY.replace(attn_type="uni"),
}


@pytest.mark.parametrize("name", sorted(CONTENT_CASES))
def test_content_stream_matches_model_garden(name):
    config, with_permutation = CONTENT_CASES[name]
    rng = np.random.default_rng(41)
    inputs = permutation_inputs(rng)[0] if with_permutation else fine_tuning_inputs(rng)
    inputs.pop("target_mapping", None)
    network = model_garden_network(config, two_stream=False)
    theirs, _ = run_model_garden(network, inputs, two_stream=False)
    ours = ours_from(network, config)(inputs)["sequence_output"]
    assert_close(config, inputs["input_ids"].shape[1], ours, theirs)


@pytest.mark.parametrize("name", sorted(QUERY_CASES))
def test_query_stream_matches_model_garden(name):
    config = QUERY_CASES[name]
    inputs, _ = permutation_inputs(np.random.default_rng(43))
    network = model_garden_network(config, two_stream=True)
    theirs, _ = run_model_garden(network, inputs, two_stream=True)
    ours = ours_from(network, config)(inputs)["query_output"]
    assert_close(config, inputs["input_ids"].shape[1], ours, theirs)


@pytest.mark.parametrize("attn_type", ["bi", "uni"])
def test_memory_in_and_out_matches_model_garden(attn_type):
    config = TINY.replace(mem_len=7, reuse_len=6, attn_type=attn_type)
    rng = np.random.default_rng(47)
    steps = [fine_tuning_inputs(rng), fine_tuning_inputs(rng)]
    network = model_garden_network(config, two_stream=False)
    backbone = ours_from(network, config)
    state, mems = None, None
    for step, inputs in enumerate(steps):
        theirs, state = run_model_garden(network, inputs, two_stream=False, state=state)
        out = backbone(inputs, mems=mems)
        mems = out["new_mems"]
        klen = (0 if step == 0 else config.mem_len) + inputs["input_ids"].shape[1]
        assert_close(config, klen, out["sequence_output"], theirs)
        for mine, reference in zip(mems, state):
            assert_close(config, klen, mine, reference)


def test_the_comparison_sees_a_wrong_weight():
    inputs, _ = permutation_inputs(np.random.default_rng(43))
    network = model_garden_network(TINY, two_stream=True)
    theirs, _ = run_model_garden(network, inputs, two_stream=True)
    backbone = ours_from(network, TINY)
    backbone.r_s_bias.assign(backbone.r_s_bias.numpy() + 1e-3)
    with pytest.raises(AssertionError):
        assert_close(TINY, inputs["input_ids"].shape[1], backbone(inputs)["query_output"], theirs)


def test_mismatches_name_the_variable_and_shapes():
    network = model_garden_network(TINY, two_stream=False)
    with pytest.raises(CheckpointMismatchError, match=r"layer_0/ff/layer_1/kernel: checkpoint has shape "
                                                      r"\[32, 64\], model expects \[32, 48\]"):
        ours_from(network, TINY.replace(d_inner=48))
    with pytest.raises(CheckpointMismatchError, match=r"r_w_bias: checkpoint has shape \[2, 4, 8\], "
                                                      r"model expects \[4, 8\]"):
        ours_from(network, TINY.replace(untie_r=False))
