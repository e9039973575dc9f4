"""Our model's weights written out in the TF1 and Hugging Face layouts."""

import numpy as np

from families.bert.checkpoints.hf_names import hf_name
from families.bert.checkpoints.tf1_names import tf1_name


def to_tf1(model, only=None, name_of=tf1_name):
    """{TF1 name: array} for every variable with a TF1 name (restricted to `only`
    paths); `name_of` is the family's table, our path -> (TF1 name, transposed)."""
    out = {}
    for variable in model.weights:
        if only is not None and variable.path not in only:
            continue
        name = name_of(variable.path)
        if name is not None:
            value = np.asarray(variable.numpy())
            out[name[0]] = value.T if name[1] else value
    return out


def to_hf(model, only=None):
    """{HF BertForPreTraining name: array}, PyTorch orientation."""
    out = {}
    for name, value in to_tf1(model, only).items():
        hf, transposed = hf_name(name)
        out[hf] = np.ascontiguousarray(value.T if transposed else value)
    return out
