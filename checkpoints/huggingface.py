"""Hugging Face BERT directories: `config.json` + `model.safetensors` or `pytorch_model.bin`."""

import json
import os

import numpy as np

from families.bert.checkpoints.hf_names import normalize_hf_names
from families.bert.config import BertConfig
from utils.files import atomic_output, atomic_write_text

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


def read_hf_tensors(path):
    """{HF name: array} with names normalised to the `BertForPreTraining` layout."""
    return normalize_hf_names(read_weight_file(path))


def read_hf_config(path):
    with open(os.path.join(path, "config.json"), encoding="utf-8") as f:
        return BertConfig.from_dict(json.load(f), source=os.path.join(path, "config.json"))


def write_hf_dir(tensors, config, path):
    """Writes `config.json` and `model.safetensors` that `transformers` loads as
    `BertForPreTraining` (or `BertModel`, which ignores the heads)."""
    from safetensors.numpy import save
    os.makedirs(path, exist_ok=True)
    tensors = {k: np.ascontiguousarray(v) for k, v in tensors.items()}
    if "cls.predictions.bias" in tensors:
        tensors["cls.predictions.decoder.bias"] = tensors["cls.predictions.bias"].copy()
        tensors["cls.predictions.decoder.weight"] = tensors["bert.embeddings.word_embeddings.weight"].copy()
    with atomic_output(os.path.join(path, "model.safetensors"), "wb") as f:
        f.write(save(tensors, metadata={"format": "pt"}))
    hf_config = {**config.to_dict(), "model_type": "bert", "architectures": ["BertForPreTraining"]}
    atomic_write_text(os.path.join(path, "config.json"), json.dumps(hf_config, indent=2) + "\n")
