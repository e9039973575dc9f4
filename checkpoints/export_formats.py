"""Our model's weights written out under another layout's names, by a
family's name table."""

import numpy as np


def named_weights(model, name_of, only=None):
    """{name: array} for every variable `name_of` names (restricted to `only`
    paths); `name_of` is a family's table, our path -> (name, transposed) or None."""
    out = {}
    for variable in model.weights:
        if only is not None and variable.path not in only:
            continue
        name = name_of(variable.path)
        if name is not None:
            value = np.asarray(variable.numpy())
            out[name[0]] = value.T if name[1] else value
    return out
