"""The converter CLI: real MiniLM weights HF -> TF1 -> HF come back bit-identical."""

import os
import sys

import numpy as np
from safetensors.numpy import load_file

from tests import warm_python
from tests.conftest import ROOT
from tests.references import minilm_dir


def _convert(*args):
    warm_python.run([sys.executable, os.path.join(ROOT, "convert_checkpoint.py"), *args], check=True,
                    cwd=ROOT, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}, capture_output=True)


def test_hf_to_tf1_to_hf_keeps_every_tensor(tmp_path):
    _convert(f"--init_checkpoint={minilm_dir()}", "--output_format=tf1",
             f"--output_dir={tmp_path / 'tf1'}", f"--vocab_file={minilm_dir()}/vocab.txt")
    assert (tmp_path / "tf1" / "bert_model.ckpt.index").exists()
    assert (tmp_path / "tf1" / "vocab.txt").exists()
    _convert(f"--init_checkpoint={tmp_path / 'tf1' / 'bert_model.ckpt'}", "--output_format=hf",
             f"--output_dir={tmp_path / 'hf'}")
    original = load_file(os.path.join(minilm_dir(), "model.safetensors"))
    converted = load_file(str(tmp_path / "hf" / "model.safetensors"))
    original.pop("embeddings.position_ids")
    assert {"bert." + k for k in original} == set(converted)  # no heads invented
    for name, value in original.items():
        np.testing.assert_array_equal(converted["bert." + name], value, err_msg=name)
