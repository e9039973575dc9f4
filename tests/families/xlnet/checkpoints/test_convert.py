"""convert_checkpoint.py on XLNet: an original-layout checkpoint with its
`xlnet_config.json` (the original's eight fields) through every layout and back,
heads kept wherever the layout has them."""

import json
import os
import sys

import numpy as np
import pytest

from checkpoints.companion_files import resolve_encoder_config
from checkpoints.tf_checkpoint import read_tensors, write_name_based
from families.xlnet.checkpoints.parts import parts_to_tf1
from convert_checkpoint import convert
from tests import warm_python
from tests.families.xlnet.checkpoints.random_weights import random_parts
from tests.conftest import ROOT
from tests.families.xlnet.cases import TINY

ORIGINAL_FIELDS = ("n_layer", "d_model", "n_head", "d_head", "d_inner", "ff_activation", "untie_r", "n_token")


@pytest.fixture
def original(tmp_path):
    """A release-like directory: `xlnet_model.ckpt` and the original's `xlnet_config.json`."""
    directory = tmp_path / "original"
    tensors = parts_to_tf1(random_parts())
    write_name_based(tensors, str(directory / "xlnet_model.ckpt"))
    (directory / "xlnet_config.json").write_text(json.dumps({k: getattr(TINY, k) for k in ORIGINAL_FIELDS}))
    return str(directory / "xlnet_model.ckpt"), tensors


def test_the_config_beside_an_original_checkpoint_is_an_xlnet_config(original):
    config = resolve_encoder_config(init_checkpoint=original[0])
    assert config == TINY.replace(dropout=0.1, dropatt=0.1)  # run options take their defaults


def test_every_layout_and_back_is_lossless(tmp_path, original):
    path, tensors = original
    convert(path, str(tmp_path / "hf"), "hf")
    convert(str(tmp_path / "hf"), str(tmp_path / "ours"), "ours")
    convert(str(tmp_path / "ours"), str(tmp_path / "tf1"), "tf1")
    back = read_tensors(str(tmp_path / "tf1" / "xlnet_model.ckpt"))
    assert sorted(back) == sorted(tensors)
    for name, value in tensors.items():
        np.testing.assert_array_equal(back[name], value, err_msg=name)
    report = convert(str(tmp_path / "tf1" / "xlnet_model.ckpt"), str(tmp_path / "mg"), "model_garden")
    assert len(report.loaded) == len(tensors)
    convert(str(tmp_path / "mg" / "ckpt"), str(tmp_path / "mg_tf1"), "tf1")
    backbone_only = read_tensors(str(tmp_path / "mg_tf1" / "xlnet_model.ckpt"))
    assert sorted(backbone_only) == sorted(n for n in tensors if n.startswith("model/transformer/"))
    for name, value in backbone_only.items():
        np.testing.assert_array_equal(value, tensors[name], err_msg=name)


def test_hugging_face_output_names_the_class_that_holds_the_heads(tmp_path, original):
    convert(original[0], str(tmp_path), "hf")
    with open(tmp_path / "config.json") as f:
        assert json.load(f)["architectures"] == ["XLNetForQuestionAnswering"]


def test_the_command_line_converts_and_refuses_what_a_family_cannot_write(tmp_path, original):
    run = [sys.executable, os.path.join(ROOT, "convert_checkpoint.py"), f"--init_checkpoint={original[0]}"]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    warm_python.run(run + ["--output_format=tf1", f"--output_dir={tmp_path / 'out'}"], check=True, cwd=ROOT,
                    env=env, capture_output=True)
    assert (tmp_path / "out" / "xlnet_model.ckpt.index").exists()
    assert (tmp_path / "out" / "xlnet_config.json").exists()
    refused = warm_python.run(run + ["--output_format=keras_hub", f"--output_dir={tmp_path / 'kh'}"], cwd=ROOT,
                              env=env, capture_output=True, text=True)
    assert refused.returncode != 0 and "keras_hub is written for BERT only, not XLNet" in refused.stderr


def test_a_directory_saved_by_transformers_converts_with_its_config(tmp_path):
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from tests.families.xlnet.hf_reference import hf_model, hf_tensors
    model = hf_model(TINY, model_class=transformers.XLNetForQuestionAnswering)
    model.save_pretrained(str(tmp_path / "hf"))
    assert resolve_encoder_config(init_checkpoint=str(tmp_path / "hf")) == TINY.replace(dropatt=0.1)
    report = convert(str(tmp_path / "hf"), str(tmp_path / "tf1"), "tf1")
    assert not report.unused and not report.missing
    back = read_tensors(str(tmp_path / "tf1" / "xlnet_model.ckpt"))
    theirs = hf_tensors(model)
    np.testing.assert_array_equal(back["answer_class/dense_0/kernel"], theirs["answer_class.dense_0.weight"].T)
    np.testing.assert_array_equal(back["model/transformer/r_s_bias"][1],
                                  theirs["transformer.layer.1.rel_attn.r_s_bias"])
