"""Our variable paths <-> the original google-research TF1 variable names.

The TF1 names are the lingua franca: every other format (Hugging Face, Model
Garden) is mapped to and from them, so each format needs one table only.
"""

import re

# (pattern on our variable path, TF1 template, stored transposed in TF1)
_RULES = [
    (r"embeddings/(word|position|token_type)_embeddings/embeddings", r"bert/embeddings/\1_embeddings", False),
    (r"embeddings/layer_norm/(gamma|beta)", r"bert/embeddings/LayerNorm/\1", False),
    (r"transformer_layer_(\d+)/self_attention/(query|key|value)/(kernel|bias)",
     r"bert/encoder/layer_\1/attention/self/\2/\3", False),
    (r"transformer_layer_(\d+)/self_attention/output/(kernel|bias)",
     r"bert/encoder/layer_\1/attention/output/dense/\2", False),
    (r"transformer_layer_(\d+)/attention_layer_norm/(gamma|beta)",
     r"bert/encoder/layer_\1/attention/output/LayerNorm/\2", False),
    (r"transformer_layer_(\d+)/intermediate/(kernel|bias)", r"bert/encoder/layer_\1/intermediate/dense/\2", False),
    (r"transformer_layer_(\d+)/output/(kernel|bias)", r"bert/encoder/layer_\1/output/dense/\2", False),
    (r"transformer_layer_(\d+)/output_layer_norm/(gamma|beta)", r"bert/encoder/layer_\1/output/LayerNorm/\2", False),
    (r"pooler/(kernel|bias)", r"bert/pooler/dense/\1", False),
    (r"masked_lm/transform/(kernel|bias)", r"cls/predictions/transform/dense/\1", False),
    (r"masked_lm/layer_norm/(gamma|beta)", r"cls/predictions/transform/LayerNorm/\1", False),
    (r"masked_lm/output_bias", r"cls/predictions/output_bias", False),
    (r"next_sentence/dense/kernel", r"cls/seq_relationship/output_weights", True),
    (r"next_sentence/dense/bias", r"cls/seq_relationship/output_bias", False),
    (r"classifier/dense/kernel", r"output_weights", True),
    (r"classifier/dense/bias", r"output_bias", False),
    (r"span/dense/kernel", r"cls/squad/output_weights", True),
    (r"span/dense/bias", r"cls/squad/output_bias", False),
]
_COMPILED = [(re.compile(p + "$"), t, tr) for p, t, tr in _RULES]


def tf1_name(path):
    """(TF1 name, transposed) for one of our variable paths, or None if it has none."""
    for pattern, template, transposed in _COMPILED:
        match = pattern.match(path)
        if match:
            return match.expand(template), transposed
    return None
