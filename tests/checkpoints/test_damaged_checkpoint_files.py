"""A checkpoint file cut short is named, with what its library found wrong: one
of the ten shards of a GPT release, ELMo's `lm_weights.hdf5` (already when the
format is detected), our and Hugging Face's safetensors, a TensorFlow
checkpoint's data; and a command line says it as one `error:` line."""

import os
import re
import shutil
import sys

import pytest

from checkpoints.damaged_files import DamagedCheckpointFileError
from checkpoints.loader import detect_format
from checkpoints.pretrained import load_pretrained
from contracts import registry
from tests import warm_python
from tests.checkpoints.conftest import tiny_config
from tests.conftest import ROOT

# (family, format written, the file cut short within it, what its library says is wrong)
CASES = [
    ("gpt", "release", "params_3.npy", "Failed to read all data for array"),
    ("elmo", "hdf5", "lm_weights.hdf5", "truncated file: eof = "),
    ("bert", "ours", "weights.safetensors", "incomplete metadata"),
    ("bert", "hf", "model.safetensors", "incomplete metadata"),
    ("bert", "tf1", "bert_model.ckpt.data-00000-of-00001", "Read less bytes than requested"),
]


def cut_copy(family_checkpoints, name, fmt, damaged, tmp_path):
    """(a copy of the checkpoint with `damaged` cut to half its size, the path of that file)."""
    source = family_checkpoints[name, fmt]
    directory = source if os.path.isdir(source) else os.path.dirname(source)
    copy = tmp_path / "copy"
    shutil.copytree(directory, copy)
    path = str(copy / damaged)
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)
    return str(copy / os.path.relpath(source, directory)), path


@pytest.mark.parametrize("name, fmt, damaged, reason", CASES)
def test_a_file_cut_short_is_named_with_what_is_wrong(family_checkpoints, name, fmt, damaged, reason,
                                                      tmp_path):
    checkpoint, path = cut_copy(family_checkpoints, name, fmt, damaged, tmp_path)
    encoder = registry.family(name).build_encoder(tiny_config(name))
    with pytest.raises(DamagedCheckpointFileError) as raised:
        load_pretrained(encoder, encoder, checkpoint)
    assert str(raised.value).startswith(f"{path}") and reason in str(raised.value)
    assert "cannot be read as" in str(raised.value)


def test_elmo_weights_cut_short_are_named_when_the_format_is_detected(family_checkpoints, tmp_path):
    checkpoint, path = cut_copy(family_checkpoints, "elmo", "hdf5", "lm_weights.hdf5", tmp_path)
    with pytest.raises(DamagedCheckpointFileError, match=f"^{re.escape(path)}: cannot be read as an HDF5 file"):
        detect_format(checkpoint)


def test_convert_checkpoint_names_the_shard_in_one_line(family_checkpoints, tmp_path):
    checkpoint, path = cut_copy(family_checkpoints, "gpt", "release", "params_3.npy", tmp_path)
    done = warm_python.run(
        [sys.executable, "convert_checkpoint.py", f"--init_checkpoint={checkpoint}", "--output_format=hf",
         f"--output_dir={tmp_path / 'out'}"], cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""})
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-3000:]
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith(f"error: {path}: cannot be read as a NumPy array, damaged or cut short? (Failed "
                           "to read all data for array.")
