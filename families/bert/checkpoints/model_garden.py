"""TF Model Garden `BertEncoder` checkpoints <-> TF1 names.

Model Garden saves object-based checkpoints of a functional tf-keras model, so
keys name layers by creation order (`layer_with_weights-N`): word, position and
type embeddings, embedding LayerNorm, one entry per Transformer layer, pooler.
Attention kernels are stored per head ([hidden, heads, head_size]).
"""

import re

import numpy as np

_ENCODER_KEY = re.compile(r"(?:(.*)/)?layer_with_weights-\d+/_attention_layer/_query_dense/kernel/")
_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
_LAYER_PARTS = {
    "_attention_layer/_query_dense": "attention/self/query",
    "_attention_layer/_key_dense": "attention/self/key",
    "_attention_layer/_value_dense": "attention/self/value",
    "_attention_layer/_output_dense": "attention/output/dense",
    "_attention_layer_norm": "attention/output/LayerNorm",
    "_intermediate_dense": "intermediate/dense",
    "_output_dense": "output/dense",
    "_output_layer_norm": "output/LayerNorm",
}
# Model Garden variable names (`variable.name` without `:0`) of the same parts.
_MG_VARIABLE_PARTS = {
    "attention/self/query": "self_attention/query",
    "attention/self/key": "self_attention/key",
    "attention/self/value": "self_attention/value",
    "attention/output/dense": "self_attention/attention_output",
    "attention/output/LayerNorm": "self_attention_layer_norm",
    "intermediate/dense": "intermediate",
    "output/dense": "output",
    "output/LayerNorm": "output_layer_norm",
}


def encoder_root(names):
    """The object path of the encoder inside a Model Garden checkpoint, or None."""
    for name in names:
        match = _ENCODER_KEY.match(name)
        if match:
            return match.group(1) or ""
    return None


def to_tf1(tensors, root):
    """{TF1 name: array} from a Model Garden checkpoint's {key: array}."""
    prefix = f"{root}/" if root else ""
    layers = {}
    for key in tensors:
        match = re.match(re.escape(prefix) + r"layer_with_weights-(\d+)/", key)
        if match:
            layers.setdefault(int(match.group(1)), []).append(key)
    num_layers = len(layers) - 5
    out = {}
    for index, keys in layers.items():
        for key in keys:
            leaf = key[len(prefix) + len(f"layer_with_weights-{index}/"): -len(_SUFFIX)]
            value = tensors[key]
            if index <= 2:
                out["bert/embeddings/" + ("word", "position", "token_type")[index] + "_embeddings"] = value
            elif index == 3:
                out["bert/embeddings/LayerNorm/" + leaf] = value
            elif index < 4 + num_layers:
                part, variable = leaf.rsplit("/", 1)
                value = _per_head_to_flat(part, variable, value)
                out[f"bert/encoder/layer_{index - 4}/{_LAYER_PARTS[part]}/{variable}"] = value
            else:
                out["bert/pooler/dense/" + leaf] = value
    return out


def _per_head_to_flat(part, variable, value):
    """Per-head attention weights -> the [hidden, hidden] / [hidden] layout of TF1."""
    if part == "_attention_layer/_output_dense" and variable == "kernel":
        return value.reshape(-1, value.shape[-1])  # [heads, head_size, hidden]
    if part.startswith("_attention_layer/_") and part != "_attention_layer/_output_dense":
        return value.reshape(value.shape[0], -1) if variable == "kernel" else value.reshape(-1)
    return value


def model_garden_values(tf1, num_heads):
    """{Model Garden variable name: array} for an `official.nlp.modeling.networks.BertEncoder`
    (used to convert our weights into a Model Garden encoder)."""
    out = {}
    for name, value in tf1.items():
        if name.startswith("bert/embeddings/"):
            leaf = name[len("bert/embeddings/"):]
            mg = {"word_embeddings": "word_embeddings/embeddings",
                  "position_embeddings": "position_embedding/embeddings",
                  "token_type_embeddings": "type_embeddings/embeddings"}.get(leaf)
            out[mg or "embeddings/layer_norm/" + leaf.split("/")[-1]] = value
        elif name.startswith("bert/pooler/dense/"):
            out["pooler_transform/" + name.rsplit("/", 1)[1]] = value
        elif name.startswith("bert/encoder/layer_"):
            match = re.match(r"bert/encoder/layer_(\d+)/(.*)/(kernel|bias|gamma|beta)$", name)
            layer, part, variable = match.groups()
            mg_part = _MG_VARIABLE_PARTS[part]
            if part.startswith("attention/self/"):
                value = (value.reshape(value.shape[0], num_heads, -1) if variable == "kernel"
                         else value.reshape(num_heads, -1))
            elif part == "attention/output/dense" and variable == "kernel":
                value = value.reshape(num_heads, -1, value.shape[-1])
            out[f"transformer/layer_{layer}/{mg_part}/{variable}"] = np.asarray(value)
    return out
