"""Activation names as they appear in `bert_config.json` files.

`gelu` is the exact erf form (the paper, Hugging Face, keras-hub); the original
TensorFlow code computed the tanh approximation, which configs call
`gelu_new` / `gelu_tanh`: use that name to reproduce it bit for bit.
"""

import keras
from keras import ops


def gelu_exact(x):
    return keras.activations.gelu(x, approximate=False)


def gelu_tanh(x):
    return keras.activations.gelu(x, approximate=True)


_ACTIVATIONS = {
    "gelu": gelu_exact,
    "gelu_new": gelu_tanh,
    "gelu_tanh": gelu_tanh,
    "relu": ops.relu,
    "tanh": ops.tanh,
    "swish": ops.silu,
    "silu": ops.silu,
}


def get_activation(name):
    return _ACTIVATIONS[name]
