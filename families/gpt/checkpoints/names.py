"""The original's tensor names <-> our variable paths.

Every GPT layout is read into and written from the original's names and
shapes (`model/h{i}/attn/c_attn/w` [1, in, out], ...), the release's order
(`RELEASE_ORDER`): positions, tokens, then twelve tensors per block. Beyond
the release, `model/specials` holds the special rows fine-tuning adds and
`model/clf/{w,b}` the original's classifier ([h, 1] for a multiple-choice
score), the two parts of the original's fine-tuned parameters that its
release leaves out.
"""

import numpy as np

# Our names of the parts of one block, after `transformer_layer_{i}/`.
_BLOCK = {
    "attn/c_proj/w": "self_attention/output/kernel",
    "attn/c_proj/b": "self_attention/output/bias",
    "ln_1/g": "attention_layer_norm/gamma",
    "ln_1/b": "attention_layer_norm/beta",
    "mlp/c_fc/w": "intermediate/kernel",
    "mlp/c_fc/b": "intermediate/bias",
    "mlp/c_proj/w": "output/kernel",
    "mlp/c_proj/b": "output/bias",
    "ln_2/g": "output_layer_norm/gamma",
    "ln_2/b": "output_layer_norm/beta",
}
# The fused query/key/value projection, held by us as its thirds.
_QKV = ("query", "key", "value")
_GLOBAL = {
    "model/positions": "embeddings/position_embeddings/embeddings",
    "model/tokens": "embeddings/word_embeddings/embeddings",
    "model/specials": "embeddings/special_embeddings/embeddings",
    "model/clf/w": "choice_scorer/dense/kernel",
    "model/clf/b": "choice_scorer/dense/bias",
}
BLOCK_PARTS = ("attn/c_attn/w", "attn/c_attn/b", "attn/c_proj/w", "attn/c_proj/b", "ln_1/g", "ln_1/b",
                "mlp/c_fc/w", "mlp/c_fc/b", "mlp/c_proj/w", "mlp/c_proj/b", "ln_2/g", "ln_2/b")


def is_block_name(name):
    """Whether `name` is one of the twelve tensors of a block, "model/h{i}/{part}"."""
    return _split_block_name(name)[1] in BLOCK_PARTS


def release_order(n_layer):
    """The names of the release's tensors in the order its shards concatenate them."""
    return ["model/positions", "model/tokens"] + [
        f"model/h{i}/{part}" for i in range(n_layer) for part in BLOCK_PARTS]


def to_ours(tensors):
    """{our variable path: array} of {original name: array}; Conv1D weights lose
    their leading 1, `c_attn` is cut into query, key and value. Names of no
    part of ours are left out (the caller reports them as unused)."""
    out = {}
    for name, value in tensors.items():
        value = np.asarray(value)
        if name in _GLOBAL:
            out[_GLOBAL[name]] = value
            continue
        layer, part = _split_block_name(name)
        if layer is None:
            continue
        if part.startswith("attn/c_attn/"):
            kind = "kernel" if part.endswith("/w") else "bias"
            thirds = np.split(value.reshape(value.shape[-2:]) if kind == "kernel" else value, 3, axis=-1)
            for projection, third in zip(_QKV, thirds):
                out[f"{layer}/self_attention/{projection}/{kind}"] = np.ascontiguousarray(third)
        elif part in _BLOCK:
            out[f"{layer}/{_BLOCK[part]}"] = value.reshape(value.shape[-2:]) if part.endswith("/w") else value
    return out


def from_ours(by_path, n_layer):
    """{original name: array} of {our variable path: array}, the inverse of
    `to_ours` for the paths given (a fused `c_attn` needs all three thirds)."""
    out = {name: by_path[path] for name, path in _GLOBAL.items() if path in by_path}
    for i in range(n_layer):
        layer = f"transformer_layer_{i}"
        for part, ours in _BLOCK.items():
            if f"{layer}/{ours}" in by_path:
                value = np.asarray(by_path[f"{layer}/{ours}"])
                out[f"model/h{i}/{part}"] = value[None] if part.endswith("/w") else value
        for kind, short in (("kernel", "w"), ("bias", "b")):
            thirds = [by_path.get(f"{layer}/self_attention/{p}/{kind}") for p in _QKV]
            if all(t is not None for t in thirds):
                fused = np.concatenate([np.asarray(t) for t in thirds], axis=-1)
                out[f"model/h{i}/attn/c_attn/{short}"] = fused[None] if kind == "kernel" else fused
    return out


def _split_block_name(name):
    """("transformer_layer_{i}", part) of "model/h{i}/{part}", else (None, None)."""
    head, _, rest = name.partition("/h")
    index, _, part = rest.partition("/")
    if head != "model" or not index.isdigit():
        return None, None
    return f"transformer_layer_{index}", part
