"""Activation names as they appear in `bert_config.json` files.

`gelu` is the exact erf form (the paper, Hugging Face, keras-hub); the original
TensorFlow code computed the tanh approximation, which configs call
`gelu_new` / `gelu_tanh`: use that name to reproduce it bit for bit.

On the TensorFlow backend a bfloat16 GELU runs as one XLA-fused kernel
(`modeling.xla_fusion`), or, at inference after `modeling.dense.Dense`, as a
post-op of oneDNN's matmul.
"""

import keras
from keras import ops

from modeling.xla_fusion import runs_fused, xla_compiled


def _gelu_exact(x):
    return keras.activations.gelu(x, approximate=False)


def _gelu_tanh(x):
    return keras.activations.gelu(x, approximate=True)


def _fused_where_it_pays(fn):
    def activation(x):
        return xla_compiled(fn)(x) if runs_fused(x) else fn(x)
    activation.__name__ = fn.__name__.lstrip("_")
    activation.onednn_form = fn  # what `modeling.dense.Dense` hands to oneDNN's matmul post-op
    return activation


gelu_exact = _fused_where_it_pays(_gelu_exact)
gelu_tanh = _fused_where_it_pays(_gelu_tanh)

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
