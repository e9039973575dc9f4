"""Hugging Face model directories: `config.json` + `model.safetensors` or `pytorch_model.bin`."""

import os

WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


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
        return load_file(weights_file)
    from checkpoints.torch_bin import load_torch_bin
    return load_torch_bin(weights_file)
