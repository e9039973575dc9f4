"""Hugging Face XLNet directories: `config.json` (`model_type: xlnet`) and
`model.safetensors` or `pytorch_model.bin`."""

import json
import os

import numpy as np

from checkpoints.huggingface import config_file, model_type
from families.xlnet.config import XLNetConfig, XLNetConfigError
from utils.files import atomic_output, atomic_write_text

# Our config fields and Hugging Face's names for them (the rest are named alike).
_RENAMED = {"n_token": "vocab_size"}
_SHARED = ("n_layer", "d_model", "n_head", "d_inner", "ff_activation", "untie_r", "attn_type", "bi_data",
           "clamp_len", "same_length", "dropout", "initializer_range", "layer_norm_eps")
# Ours -> Hugging Face activation names: ours "gelu" is exact, "gelu_new" and "gelu_tanh" the tanh form.
_ACTIVATIONS = {"gelu": "gelu", "gelu_new": "gelu_new", "gelu_tanh": "gelu_new", "relu": "relu"}


def is_xlnet_hf_dir(path):
    return model_type(path) == "xlnet"


def read_config(path):
    """`XLNetConfig` from a Hugging Face `config.json` (its memory and dropout too)."""
    with open(config_file(path), encoding="utf-8") as f:
        hf = json.load(f)
    values = {ours: hf[_RENAMED.get(ours, ours)] for ours in ("n_token",) + _SHARED
              if _RENAMED.get(ours, ours) in hf}
    values["d_head"] = hf["d_model"] // hf["n_head"]
    values["mem_len"] = hf.get("mem_len") or 0
    values["reuse_len"] = hf.get("reuse_len") or 0
    return XLNetConfig.from_dict(values, source=config_file(path))


def write_dir(tensors, config, path, architecture="XLNetLMHeadModel", **extra):
    """Writes `config.json` and `model.safetensors` that `transformers` loads as
    `architecture` (`extra`: more config fields, e.g. `start_n_top`)."""
    from safetensors.numpy import save
    if config.d_head * config.n_head != config.d_model:
        raise XLNetConfigError(f"Hugging Face XLNet needs d_head * n_head == d_model, got d_head="
                               f"{config.d_head}, n_head={config.n_head}, d_model={config.d_model}")
    os.makedirs(path, exist_ok=True)
    tensors = {k: np.ascontiguousarray(v) for k, v in tensors.items()}
    with atomic_output(os.path.join(path, "model.safetensors"), "wb") as f:
        f.write(save(tensors, metadata={"format": "pt"}))
    hf = {_RENAMED.get(name, name): getattr(config, name) for name in ("n_token",) + _SHARED}
    hf.update(model_type="xlnet", architectures=[architecture], d_head=config.d_head,
              ff_activation=_ACTIVATIONS[config.ff_activation], mem_len=config.mem_len or None,
              reuse_len=config.reuse_len or None, **extra)
    atomic_write_text(config_file(path), json.dumps(hf, indent=2) + "\n")
