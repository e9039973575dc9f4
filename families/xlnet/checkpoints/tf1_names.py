"""Our XLNet variable paths <-> the original zihangdai/xlnet TF1 variable names.

The original layout is XLNet's common format: the Hugging Face and Model Garden
tables map to and from these names, so each of them needs one table only. The
original keeps every tensor in the layout we do ([d_model, n_head, d_head]
projections, [in, out] dense kernels, the biases stacked [n_layer, ...] with
`untie_r`), so no name here is stored transposed.

Heads: the LM head's output bias (`model/lm_loss/bias`), the sequence summary
(`model/sequnece_summary/...`, the original's spelling) with its logit layer
(`model/classification_<task>/logit` or `model/regression_<task>/logit`; RACE's
multiple-choice `logits/dense` is the same layer with one unit), and the SQuAD head
(`start_logits`, `end_logits`, `answer_class`, outside `model/` as the original's
`run_squad.py` builds them). The original has no token-tagging head: ours
(a `TokenClassificationHead`) is written as `model/tagging/logit`, its CRF's
weights (`modeling.crf`) as `model/tagging/crf/<name>`.
"""

import re

TRANSFORMER = "model/transformer"
# The logit layer's scope is named after the task; we write this one and read any.
LOGIT_SCOPE = "model/classification_finetune/logit"
_ANY_LOGIT_SCOPE = re.compile(r"(?:model/(?:classification|regression)_[^/]+/logit|logits/dense)/(kernel|bias)")
TAGGING_SCOPE = "model/tagging/logit"

# (pattern matching the end of our variable path, TF1 template)
_RULES = [
    (r"word_embedding/embeddings", TRANSFORMER + r"/word_embedding/lookup_table"),
    (r"mask_emb", TRANSFORMER + r"/mask_emb/mask_emb"),
    (r"(r_w_bias|r_r_bias|r_s_bias|seg_embed)", TRANSFORMER + r"/\1"),
    (r"layer_(\d+)/rel_attn/(q|k|v|o|r)", TRANSFORMER + r"/layer_\1/rel_attn/\2/kernel"),
    (r"layer_(\d+)/(rel_attn|ff)/layer_norm/(gamma|beta)", TRANSFORMER + r"/layer_\1/\2/LayerNorm/\3"),
    (r"layer_(\d+)/ff/(layer_1|layer_2)/(kernel|bias)", TRANSFORMER + r"/layer_\1/ff/\2/\3"),
    # Keras numbers unnamed layers; a trainer checkpoint names the pretrainer's attribute.
    (r"(?:[^/]*lm_head(?:_\d+)?|lm_loss)/bias", r"model/lm_loss/bias"),
    (r"summary/(kernel|bias)", r"model/sequnece_summary/summary/\1"),
    (r"logits_proj/dense/(kernel|bias)", LOGIT_SCOPE + r"/\1"),
    # The tagging task model's head (`token_classifier`), or a bare head as Keras names it.
    (r"(?:token_classifier|[^/]*token_classification_head(?:_\d+)?)/dense/(kernel|bias)",
     TAGGING_SCOPE + r"/\1"),
    (r"crf/(transitions|start_transitions|end_transitions)", r"model/tagging/crf/\1"),
    (r"start_logits/(kernel|bias)", r"start_logits/dense/\1"),
    (r"(end_logits|answer_class)_(dense_[01])/(kernel|bias)", r"\1/\2/\3"),
    (r"end_logits_layer_norm/(gamma|beta)", r"end_logits/LayerNorm/\1"),
]
_COMPILED = [(re.compile(r"(?:^|/)" + pattern + "$"), template) for pattern, template in _RULES]


def xlnet_tf1_name(path):
    """(TF1 name, transposed=False) for one of our XLNet variable paths, or None."""
    for pattern, template in _COMPILED:
        match = pattern.search(path)
        if match:
            return match.expand(template), False
    return None


def is_xlnet_tf1(names):
    """Names of the original layout (not an object checkpoint that happens to hold a `model`)."""
    return any(name.startswith(TRANSFORMER + "/") and not name.endswith("/.ATTRIBUTES/VARIABLE_VALUE")
               for name in names)


def with_our_logit_scope(tensors):
    """The one `model/{classification,regression}_<task>/logit` (or RACE's
    `logits/dense`) layer of a checkpoint renamed to `LOGIT_SCOPE`, whatever its
    task; more than one is ambiguous."""
    scopes = {name.rsplit("/", 1)[0] for name in tensors if _ANY_LOGIT_SCOPE.fullmatch(name)}
    if len(scopes) > 1:
        raise ValueError(f"more than one logit layer in the checkpoint: {sorted(scopes)}")
    out = {}
    for name, value in tensors.items():
        match = _ANY_LOGIT_SCOPE.fullmatch(name)
        out[f"{LOGIT_SCOPE}/{match.group(1)}" if match else name] = value
    return out
