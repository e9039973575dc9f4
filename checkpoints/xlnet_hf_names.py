"""Hugging Face `XLNetModel` / `XLNetLMHeadModel` / `XLNetForSequenceClassification`
tensors -> our `XLNetBackbone` (and LM head or sequence classification head).

Hugging Face keeps every bias per layer (`transformer.layer.{i}.rel_attn.r_w_bias`);
the original, and we, keep them as one [n_layer, ...] variable, or one shared
[n_head, d_head] when `untie_r` is off: then every layer's copy must agree.
`ff.layer_1/2.weight` are PyTorch [out, in], our kernels [in, out].
"""

import re

import numpy as np

_BIASES = ("r_w_bias", "r_r_bias", "r_s_bias")
# HF tensors that carry no information of their own: the decoder is the word embedding.
_TIED = {"lm_loss.weight"}


class XLNetWeightsError(ValueError):
    """HF tensors that do not fit the model; the message names the tensor and both shapes."""


def load_hf_xlnet(backbone, tensors, lm_head=None, classification_head=None):
    """Assigns HF tensors (name -> array) to a built `backbone` (and `lm_head`,
    `classification_head`), strictly: every variable set, every tensor used."""
    tensors = {re.sub(r"^transformer\.", "", k): np.asarray(v) for k, v in tensors.items()
               if k not in _TIED}
    untie_r = backbone.config.untie_r
    targets = {"word_embedding.weight": (backbone.word_embedding.embeddings, False),
               "mask_emb": (backbone.mask_emb, False)}
    if lm_head is not None:
        targets["lm_loss.bias"] = (lm_head.bias, False)
    if classification_head is not None:
        for hf, dense in (("sequence_summary.summary", classification_head.summary),
                          ("logits_proj", classification_head.logits_proj.dense)):
            targets[f"{hf}.weight"] = (dense.kernel, True)
            targets[f"{hf}.bias"] = (dense.bias, False)
    per_layer = {name: [] for name in _BIASES + ("seg_embed",)}
    for i, block in enumerate(backbone.blocks):
        prefix = f"layer.{i}."
        attention, ff = block.rel_attn, block.ff
        for name in ("q", "k", "v", "o", "r"):
            targets[f"{prefix}rel_attn.{name}"] = (getattr(attention, name), False)
        for norm, hf in ((attention.layer_norm, "rel_attn.layer_norm"), (ff.layer_norm, "ff.layer_norm")):
            targets[f"{prefix}{hf}.weight"] = (norm.gamma, False)
            targets[f"{prefix}{hf}.bias"] = (norm.beta, False)
        for dense in (ff.layer_1, ff.layer_2):
            targets[f"{prefix}ff.{dense.name}.weight"] = (dense.kernel, True)
            targets[f"{prefix}ff.{dense.name}.bias"] = (dense.bias, False)
        for name in per_layer:
            per_layer[name].append(_pop(tensors, f"{prefix}rel_attn.{name}"))
    for name, values in per_layer.items():
        if untie_r or name == "seg_embed":
            assign(getattr(backbone, name), np.stack(values), f"layer.*.rel_attn.{name}")
        else:
            if any(not np.array_equal(values[0], v) for v in values[1:]):
                raise XLNetWeightsError(f"untie_r is off but layer.*.rel_attn.{name} differs between layers")
            assign(getattr(backbone, name), values[0], f"layer.0.rel_attn.{name}")
    for name, (variable, transposed) in targets.items():
        value = _pop(tensors, name)
        assign(variable, value.T if transposed else value, name)
    if tensors:
        raise XLNetWeightsError(f"unused tensors: {sorted(tensors)}")


def _pop(tensors, name):
    if name not in tensors:
        raise XLNetWeightsError(f"missing tensor {name}")
    return tensors.pop(name)


def assign(variable, value, name):
    if tuple(variable.shape) != value.shape:
        raise XLNetWeightsError(
            f"{name}: tensor shape {value.shape} does not fit {variable.path} {tuple(variable.shape)}")
    variable.assign(value.astype(variable.dtype))
