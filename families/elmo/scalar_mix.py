"""`ScalarMix`: the paper's ELMo vector, a learned weighting of the biLM's
layers that belongs to the task (a fine-tuning weight), as the original's
`bilm.weight_layers`."""

import keras
from keras import ops

LAYER_NORM_EPSILON = 1e-12


@keras.saving.register_keras_serializable(package="bert_garden")
class ScalarMix(keras.layers.Layer):
    """`gamma * sum_j s_j h_j` over the layers `h_j` [batch, seq, dim], with
    `s = softmax(W + 1/L)` (L layers; the original adds 1/L, which softmax
    ignores), `W` starting at zero (an even mix) and `gamma` at one.

    `do_layer_norm` first normalises each layer by one mean and variance over
    all its real positions and features in the batch (the original's masked
    statistics, epsilon 1e-12), not per token. `l2_coef` adds
    `l2_coef * sum(W**2)` to the layer's losses (the original's regulariser on
    `W`; the paper's lambda). Called as `mix(layers, mask)`, mask [batch, seq].
    """

    def __init__(self, do_layer_norm=False, l2_coef=None, **kwargs):
        super().__init__(**kwargs)
        self.do_layer_norm, self.l2_coef = do_layer_norm, l2_coef

    def build(self, layers_shape, mask_shape=None):
        self.num_layers = len(layers_shape)
        regularizer = keras.regularizers.L2(self.l2_coef) if self.l2_coef else None
        self.w = self.add_weight(name="ELMo_W", shape=(self.num_layers,), initializer="zeros",
                                 regularizer=regularizer)
        self.gamma = self.add_weight(name="ELMo_gamma", shape=(1,), initializer="ones")

    def call(self, layers, mask):
        weights = ops.unstack(ops.softmax(self.w + 1.0 / self.num_layers), self.num_layers)
        real = ops.cast(ops.expand_dims(mask, -1), layers[0].dtype)
        if self.do_layer_norm:
            layers = [_masked_layer_norm(h, real) for h in layers]
        return self.gamma * sum(w * h for w, h in zip(weights, layers))

    def get_config(self):
        return {**super().get_config(), "do_layer_norm": self.do_layer_norm, "l2_coef": self.l2_coef}


def _masked_layer_norm(h, real):
    count = ops.sum(real) * ops.cast(ops.shape(h)[-1], h.dtype)
    mean = ops.sum(h * real) / count
    variance = ops.sum(((h * real - mean) * real) ** 2) / count
    return (h - mean) / ops.sqrt(variance + LAYER_NORM_EPSILON)
