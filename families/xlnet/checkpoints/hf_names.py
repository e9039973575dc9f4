"""The original XLNet TF1 names <-> Hugging Face `XLNetLMHeadModel` /
`XLNetForSequenceClassification` / `XLNetForMultipleChoice` /
`XLNetForTokenClassification` / `XLNetForQuestionAnswering` tensor names.

Hugging Face keeps every attention bias per layer
(`transformer.layer.{i}.rel_attn.r_w_bias`, [n_head, d_head]) where the original
stacks them [n_layer, ...], or shares one [n_head, d_head] when `untie_r` is off
(then every layer's copy must agree). Dense weights are PyTorch [out, in], the
original's kernels [in, out]; the attention projections are [d_model, n_head,
d_head] in both.
"""

import re

import numpy as np

from checkpoints.name_templates import NameTable
from families.xlnet.checkpoints.tf1_names import LOGIT_SCOPE, TAGGING_SCOPE, TRANSFORMER

T = (1, 0)
_LAYER = TRANSFORMER + "/layer_{i}"
TABLE = NameTable([
    (TRANSFORMER + "/word_embedding/lookup_table", "transformer.word_embedding.weight", None),
    (TRANSFORMER + "/mask_emb/mask_emb", "transformer.mask_emb", None),
    (_LAYER + "/rel_attn/{p}/kernel", "transformer.layer.{i}.rel_attn.{p}", None),
    (_LAYER + "/{block}/LayerNorm/gamma", "transformer.layer.{i}.{block}.layer_norm.weight", None),
    (_LAYER + "/{block}/LayerNorm/beta", "transformer.layer.{i}.{block}.layer_norm.bias", None),
    (_LAYER + "/ff/{dense}/kernel", "transformer.layer.{i}.ff.{dense}.weight", T),
    (_LAYER + "/ff/{dense}/bias", "transformer.layer.{i}.ff.{dense}.bias", None),
    ("model/lm_loss/bias", "lm_loss.bias", None),
    ("model/sequnece_summary/summary/kernel", "sequence_summary.summary.weight", T),
    ("model/sequnece_summary/summary/bias", "sequence_summary.summary.bias", None),
    (LOGIT_SCOPE + "/kernel", "logits_proj.weight", T),
    (LOGIT_SCOPE + "/bias", "logits_proj.bias", None),
    (TAGGING_SCOPE + "/kernel", "classifier.weight", T),
    (TAGGING_SCOPE + "/bias", "classifier.bias", None),
    ("start_logits/dense/kernel", "start_logits.dense.weight", T),
    ("start_logits/dense/bias", "start_logits.dense.bias", None),
    ("end_logits/LayerNorm/gamma", "end_logits.LayerNorm.weight", None),
    ("end_logits/LayerNorm/beta", "end_logits.LayerNorm.bias", None),
    ("end_logits/{dense}/kernel", "end_logits.{dense}.weight", T),
    ("end_logits/{dense}/bias", "end_logits.{dense}.bias", None),
    ("answer_class/{dense}/kernel", "answer_class.{dense}.weight", T),
    ("answer_class/dense_0/bias", "answer_class.dense_0.bias", None),
])
# Per-layer in Hugging Face, stacked (or shared) in the original.
PER_LAYER = ("r_w_bias", "r_r_bias", "r_s_bias", "seg_embed")
_PER_LAYER_KEY = re.compile(r"transformer\.layer\.(\d+)\.rel_attn\.(" + "|".join(PER_LAYER) + ")")
# Tensors that carry nothing of their own: the LM decoder is the word embedding.
_TIED = ("lm_loss.weight", "transformer.lm_loss.weight")


class XLNetWeightsError(ValueError):
    """Tensors that do not fit together; the message names the tensor."""


def tf1_to_hf(tensors, n_layer):
    """{HF name: array} from {TF1 name: array}; names no rule knows raise."""
    tensors = dict(tensors)
    per_layer = {name: tensors.pop(f"{TRANSFORMER}/{name}") for name in PER_LAYER
                 if f"{TRANSFORMER}/{name}" in tensors}
    out, unknown = TABLE.convert(tensors)
    if unknown:
        raise XLNetWeightsError(f"no Hugging Face name for {sorted(unknown)}")
    for name, value in per_layer.items():
        stacked = name == "seg_embed" or value.ndim == 3
        for i in range(n_layer):
            out[f"transformer.layer.{i}.rel_attn.{name}"] = np.ascontiguousarray(value[i] if stacked else value)
    return out


def hf_to_tf1(tensors, untie_r=True):
    """{TF1 name: array} from Hugging Face tensors (with or without the
    `transformer.` prefix of the task models); per-layer biases stacked, or with
    `untie_r` off checked equal and kept once. Unknown names raise."""
    bare = not any(k.startswith("transformer.") for k in tensors)
    per_layer, rest = {}, {}
    for key, value in tensors.items():
        if key in _TIED:
            continue
        if bare and (key.startswith("layer.") or key in ("word_embedding.weight", "mask_emb")):
            key = "transformer." + key
        match = _PER_LAYER_KEY.fullmatch(key)
        if match:
            per_layer.setdefault(match.group(2), {})[int(match.group(1))] = np.asarray(value)
        else:
            rest[key] = value
    out, unknown = TABLE.convert(rest, to_b=False)
    if unknown:
        raise XLNetWeightsError(f"unknown Hugging Face XLNet tensors: {sorted(unknown)}")
    for name in (n for n in PER_LAYER if n in per_layer):
        values = [per_layer[name][i] for i in sorted(per_layer[name])]
        if untie_r or name == "seg_embed":
            out[f"{TRANSFORMER}/{name}"] = np.stack(values)
        elif any(not np.array_equal(values[0], v) for v in values[1:]):
            raise XLNetWeightsError(f"untie_r is off but layer.*.rel_attn.{name} differs between layers")
        else:
            out[f"{TRANSFORMER}/{name}"] = values[0]
    return out
