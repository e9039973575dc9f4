"""BERT's weights written out in the original TF1 and Hugging Face layouts."""

import numpy as np

from checkpoints.export_formats import named_weights
from families.bert.checkpoints.hf_names import hf_name
from families.bert.checkpoints.tf1_names import tf1_name


def to_tf1(model, only=None):
    """{TF1 name: array} for every variable with a TF1 name (restricted to `only` paths)."""
    return named_weights(model, tf1_name, only)


def to_hf(model, only=None):
    """{HF BertForPreTraining name: array}, PyTorch orientation."""
    out = {}
    for name, value in to_tf1(model, only).items():
        hf, transposed = hf_name(name)
        out[hf] = np.ascontiguousarray(value.T if transposed else value)
    return out
