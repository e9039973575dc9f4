"""Activation names as they appear in `bert_config.json` files.

`gelu` is the exact erf form (the paper, Hugging Face, keras-hub); the original
TensorFlow code computed the tanh approximation, which configs call
`gelu_new` / `gelu_tanh`: use that name to reproduce it bit for bit.

On the TensorFlow backend a bfloat16 GELU runs as one XLA-fused kernel: TF's
unfused bf16 elementwise ops made GELU the largest cost of CPU bf16 inference
(117 ms against 30 ms fused for a [4096, 3072] BERT-Base FFN activation,
4x the matmul that feeds it). Other dtypes and backends take the plain op.
"""

import functools

import keras
from keras import ops


@functools.cache
def _tf_fused(approximate):
    import tensorflow as tf
    return tf.function(lambda x: tf.nn.gelu(x, approximate=approximate), jit_compile=True,
                       reduce_retracing=True)


def _gelu(x, approximate):
    if keras.backend.backend() == "tensorflow" and keras.backend.standardize_dtype(
            x.dtype) == "bfloat16":
        return _tf_fused(approximate)(x)
    return keras.activations.gelu(x, approximate=approximate)


def gelu_exact(x):
    return _gelu(x, approximate=False)


def gelu_tanh(x):
    return _gelu(x, approximate=True)


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
