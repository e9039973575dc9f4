"""Hugging Face model directories: `config.json` + `model.safetensors` or `pytorch_model.bin`."""

import json
import os

from checkpoints.damaged_files import reading

WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


def config_file(path):
    """The `config.json` of the directory `path`."""
    return os.path.join(path, "config.json")


def model_type(path):
    """The `model_type` the `config.json` in `path` names, or None (no such file or field)."""
    if not os.path.isfile(config_file(path)):
        return None
    with open(config_file(path), encoding="utf-8") as f:
        return json.load(f).get("model_type")


def is_hf_dir(path):
    return os.path.isdir(path) and any(os.path.isfile(os.path.join(path, f)) for f in WEIGHT_FILES)


def read_weight_file(path):
    """{name: array} of the weights file in a Hugging Face directory, names as stored."""
    for name in WEIGHT_FILES:
        weights_file = os.path.join(path, name)
        if os.path.isfile(weights_file):
            break
    else:
        raise FileNotFoundError(f"{path}: none of {WEIGHT_FILES}")
    if weights_file.endswith(".safetensors"):
        from safetensors.numpy import load_file
        with reading(weights_file, "a safetensors file"):
            return load_file(weights_file)
    from checkpoints.torch_bin import load_torch_bin
    return load_torch_bin(weights_file)
