"""Hugging Face BERT directories: `config.json` + `model.safetensors` or `pytorch_model.bin`."""

import json
import os

import numpy as np

from checkpoints.huggingface import read_weight_file
from families.bert.checkpoints.hf_names import normalize_hf_names
from families.bert.config import BertConfig
from utils.files import atomic_output, atomic_write_text


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
