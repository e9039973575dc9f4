"""TF1 names <-> Hugging Face `BertForPreTraining` tensor names.

Dense weights are stored [out, in] by PyTorch, i.e. transposed w.r.t. TF1
kernels; LayerNorm gamma/beta are weight/bias (gamma/beta in old files).
"""

import re

_SPECIAL = {
    "cls/predictions/output_bias": "cls.predictions.bias",
    "cls/seq_relationship/output_weights": "cls.seq_relationship.weight",  # [2, H] in both
    "cls/seq_relationship/output_bias": "cls.seq_relationship.bias",
    "output_weights": "classifier.weight",  # [labels, H] in both
    "output_bias": "classifier.bias",
    "cls/squad/output_weights": "qa_outputs.weight",
    "cls/squad/output_bias": "qa_outputs.bias",
}
# HF tensors that carry no information of their own.
IGNORED = re.compile(r"(bert\.)?embeddings\.position_ids|cls\.predictions\.decoder\.(weight|bias)")


def hf_name(tf1):
    """(HF name, transposed relative to TF1) for a TF1 variable name."""
    if tf1 in _SPECIAL:
        return _SPECIAL[tf1], False
    name = re.sub(r"layer_(\d+)", r"layer.\1", tf1).replace("/", ".")
    if name.endswith("_embeddings"):
        return name + ".weight", False
    if name.endswith(".kernel"):
        return name[: -len("kernel")] + "weight", True
    if name.endswith(".gamma"):
        return name[: -len("gamma")] + "weight", False
    if name.endswith(".beta"):
        return name[: -len("beta")] + "bias", False
    return name, False


def normalize_hf_names(tensors):
    """Adds the `bert.` prefix of a bare BertModel and renames old gamma/beta."""
    bare = not any(k.startswith("bert.") for k in tensors)
    out = {}
    for key, value in tensors.items():
        if IGNORED.fullmatch(key):
            continue
        if bare and key.startswith(("embeddings.", "encoder.", "pooler.")):
            key = "bert." + key
        if "LayerNorm" in key:
            key = re.sub(r"\.gamma$", ".weight", re.sub(r"\.beta$", ".bias", key))
        out[key] = value
    return out
