"""Hugging Face `openai-gpt` directories: `config.json` (`model_type:
openai-gpt`) and `model.safetensors` or `pytorch_model.bin`, read into and
written from the original's names (`families.gpt.checkpoints.names`).

Hugging Face keeps the special rows at the end of `tokens_embed` (after
`resize_token_embeddings`), so its `vocab_size` counts them; the directories
written here say how many in an extra `config.json` field, `n_special`, which
`transformers` keeps and ignores. A directory without it has none.
"""

import json
import os

import numpy as np

from checkpoints.huggingface import config_file, model_type, read_weight_file
from families.gpt.checkpoints.names import is_block_name
from families.gpt.config import GPTConfig
from utils.files import atomic_output, atomic_write_text

MODEL_TYPE = "openai-gpt"
# Our config fields under Hugging Face's names, where they differ.
_RENAMED = {"n_ctx": "n_positions", "clf_pdrop": "summary_first_dropout"}
_SHARED = ("n_embd", "n_head", "n_layer", "embd_pdrop", "attn_pdrop", "resid_pdrop", "layer_norm_epsilon",
           "initializer_range", "afn")
# Hugging Face's activation names -> ours ("gelu" is the tanh form in both).
_ACTIVATIONS = {"gelu": "gelu", "relu": "relu", "silu": "swish", "swish": "swish"}
# The LM head, tied to `tokens_embed`: one name of the pair is enough.
_TIED = "lm_head.weight"
_MC = {"model/clf/w": "multiple_choice_head.summary.weight", "model/clf/b": "multiple_choice_head.summary.bias"}


def is_gpt_hf_dir(path):
    return model_type(path) == MODEL_TYPE


def read_config(path):
    """`GPTConfig` of a Hugging Face `config.json`."""
    with open(config_file(path), encoding="utf-8") as f:
        hf = json.load(f)
    values = {ours: hf[_RENAMED.get(ours, ours)] for ours in _SHARED + tuple(_RENAMED)
              if _RENAMED.get(ours, ours) in hf}
    if "afn" in values:
        values["afn"] = _ACTIVATIONS.get(values["afn"], values["afn"])
    values["n_special"] = hf.get("n_special", 0)
    values["n_vocab"] = hf["vocab_size"] - values["n_special"]
    return GPTConfig.from_dict(values, source=config_file(path))


def read_tensors(path, n_special):
    """`from_hf` of the weights file in a Hugging Face directory."""
    return from_hf(read_weight_file(path), n_special)


def from_hf(tensors, n_special):
    """({original name: array}, [names GPT's layouts have no place for]) of
    Hugging Face's {name: array}, with or without the `transformer.` prefix
    (the last `n_special` rows of `tokens_embed` are the special rows)."""
    hf = {name.removeprefix("transformer."): value for name, value in tensors.items()}
    tied = hf.pop(_TIED, None)
    if "tokens_embed.weight" not in hf and tied is not None:
        hf["tokens_embed.weight"] = tied  # `save_pretrained` may keep the head's name of the tied pair
    out, unused = {}, []
    for name, value in hf.items():
        if name == "tokens_embed.weight":
            rows = value.shape[0] - n_special
            out["model/tokens"] = value[:rows]
            if n_special:
                out["model/specials"] = value[rows:]
        elif name == "positions_embed.weight":
            out["model/positions"] = value
        elif name in _MC.values():
            original = next(k for k, v in _MC.items() if v == name)
            out[original] = value.T if original.endswith("/w") else value
        elif is_block_name(_original_block_name(name)):
            out[_original_block_name(name)] = value[None] if _is_conv_weight(name) else value
        else:
            unused.append(name)
    return out, unused


def write_dir(tensors, config, path):
    """Writes `config.json` and `model.safetensors` that `transformers` loads:
    as `OpenAIGPTDoubleHeadsModel` when `tensors` hold the classifier, else as
    `OpenAIGPTLMHeadModel`."""
    from safetensors.numpy import save
    os.makedirs(path, exist_ok=True)
    with atomic_output(os.path.join(path, "model.safetensors"), "wb") as f:
        f.write(save(to_hf(tensors), metadata={"format": "pt"}))
    hf = hf_config(config, multiple_choice="model/clf/w" in tensors)
    atomic_write_text(config_file(path), json.dumps(hf, indent=2) + "\n")


def write_torch_bin(tensors, path):
    """Also writes `pytorch_model.bin`, for tools that read only that; needs torch."""
    try:
        import torch
    except ImportError:
        raise ImportError("writing pytorch_model.bin needs torch (pip install torch); "
                          "model.safetensors needs nothing more") from None
    state = {name: torch.from_numpy(np.array(value)) for name, value in to_hf(tensors).items()}
    with atomic_output(os.path.join(path, "pytorch_model.bin"), "wb") as f:
        torch.save(state, f)


def hf_config(config, multiple_choice=False):
    """Hugging Face's `config.json` fields of `config` (and our `n_special`)."""
    hf = {_RENAMED.get(name, name): getattr(config, name) for name in _SHARED + tuple(_RENAMED)}
    hf.update(model_type=MODEL_TYPE, n_ctx=config.n_ctx, vocab_size=config.vocab_size,
              n_special=config.n_special,
              architectures=["OpenAIGPTDoubleHeadsModel" if multiple_choice else "OpenAIGPTLMHeadModel"])
    if multiple_choice:
        hf["num_labels"] = 1
    return hf


def to_hf(tensors):
    """{Hugging Face name: contiguous array} of {original name: array}, under
    the `transformer.` prefix of the head models."""
    out = {}
    if "model/tokens" in tensors:
        rows = [tensors["model/tokens"]] + ([tensors["model/specials"]] if "model/specials" in tensors else [])
        out["transformer.tokens_embed.weight"] = np.concatenate(rows, axis=0)
    if "model/positions" in tensors:
        out["transformer.positions_embed.weight"] = tensors["model/positions"]
    for original, name in _MC.items():
        if original in tensors:
            out[name] = tensors[original].T if original.endswith("/w") else tensors[original]
    for original, value in tensors.items():
        if original.startswith("model/h"):
            name = _hf_block_name(original)
            out["transformer." + name] = value[0] if _is_conv_weight(name) else value
    return {name: np.ascontiguousarray(value) for name, value in out.items()}


def _hf_block_name(original):
    """"model/h3/attn/c_attn/w" -> "h.3.attn.c_attn.weight"; LayerNorm g/b -> weight/bias."""
    _, layer, *parts = original.split("/")
    last = {"w": "weight", "g": "weight", "b": "bias"}[parts[-1]]
    return ".".join(["h", layer[1:], *parts[:-1], last])


def _original_block_name(name):
    """"h.3.attn.c_attn.weight" -> "model/h3/attn/c_attn/w" ("" for no block's name)."""
    head, layer, *parts = name.split(".") + [""]
    if head != "h" or not parts[-2:-1]:
        return ""
    parts = parts[:-1]
    short = "b" if parts[-1] == "bias" else ("g" if parts[0].startswith("ln_") else "w")
    return "/".join(["model", f"h{layer}", *parts[:-1], short])


def _is_conv_weight(name):
    return name.endswith(".weight") and ".ln_" not in name
