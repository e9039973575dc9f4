"""Our own weights format: `weights.safetensors` keyed by Keras variable path, with
its family's config file (`bert_config.json`, `xlnet_config.json`) beside it. Backend-neutral:
loads under TensorFlow or JAX."""

import os

import numpy as np

from checkpoints.damaged_files import reading
from checkpoints.model_weights import checkpointed_weights
from utils.files import atomic_output

WEIGHTS_FILE = "weights.safetensors"


def weights_file(path):
    return os.path.join(path, WEIGHTS_FILE) if os.path.isdir(path) else path


def is_ours(path):
    candidate = weights_file(path)
    if not (candidate.endswith(".safetensors") and os.path.isfile(candidate)):
        return False
    from safetensors import safe_open
    with reading(candidate, "a safetensors file"), safe_open(candidate, "np") as f:
        return (f.metadata() or {}).get("format") == "bert_garden"


def save_weights(model, path, only=None):
    """Weights of `model` (all, or the paths in `only`; no state it carries
    between calls: `checkpointed_weights`), plus its config file when the
    model has an encoder (or, as `XLNetParts`, a config)."""
    from safetensors.numpy import save
    os.makedirs(path, exist_ok=True)
    tensors = {v.path: np.ascontiguousarray(np.asarray(v.numpy() if hasattr(v, "numpy") else v))
               for v in checkpointed_weights(model) if only is None or v.path in only}
    with atomic_output(os.path.join(path, WEIGHTS_FILE), "wb") as f:
        f.write(save(tensors, metadata={"format": "bert_garden"}))
    config = getattr(model, "config", None) or getattr(getattr(model, "encoder", None), "config", None)
    if config is not None:
        config.to_json_file(os.path.join(path, config.config_file_name))


def read_weights(path):
    from safetensors.numpy import load_file
    with reading(weights_file(path), "a safetensors file"):
        return load_file(weights_file(path))
