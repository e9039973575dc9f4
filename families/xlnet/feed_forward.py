"""XLNet's position-wise feed-forward block: two dense layers, residual, post-LayerNorm."""

import keras

from modeling.activations import get_activation
from modeling.dense import Dense
from modeling.layer_norm import LayerNorm


@keras.saving.register_keras_serializable(package="bert_garden")
class FeedForward(keras.layers.Layer):
    """layer_1 (activation) -> dropout -> layer_2 -> dropout -> add & LayerNorm."""

    def __init__(self, d_model, d_inner, ff_activation="gelu", dropout=0.1, initializer_range=0.02,
                 layer_norm_eps=1e-12, **kwargs):
        super().__init__(**kwargs)
        self.d_model = d_model
        self.d_inner = d_inner
        self.ff_activation = ff_activation
        self.dropout = dropout
        self.initializer_range = initializer_range
        self.layer_norm_eps = layer_norm_eps
        init = keras.initializers.RandomNormal(stddev=initializer_range)
        self.layer_1 = Dense(d_inner, activation=get_activation(ff_activation), kernel_initializer=init,
                             dtype=self.dtype_policy, name="layer_1")
        self.layer_2 = Dense(d_model, kernel_initializer=init, dtype=self.dtype_policy, name="layer_2")
        self.inner_dropout = keras.layers.Dropout(dropout, dtype=self.dtype_policy)
        self.output_dropout = keras.layers.Dropout(dropout, dtype=self.dtype_policy)
        self.layer_norm = LayerNorm(epsilon=layer_norm_eps, dtype=self.dtype_policy, name="layer_norm")

    def build(self, inputs_shape):
        self.layer_1.build(inputs_shape)
        self.layer_2.build(tuple(inputs_shape[:-1]) + (self.d_inner,))
        self.layer_norm.build(inputs_shape)
        self.built = True

    def call(self, inputs, training=None):
        x = self.inner_dropout(self.layer_1(inputs), training=training)
        x = self.output_dropout(self.layer_2(x), training=training)
        return self.layer_norm(x + inputs)

    def compute_output_shape(self, inputs_shape):
        return inputs_shape

    def get_config(self):
        config = super().get_config()
        config.update(d_model=self.d_model, d_inner=self.d_inner, ff_activation=self.ff_activation,
                      dropout=self.dropout, initializer_range=self.initializer_range,
                      layer_norm_eps=self.layer_norm_eps)
        return config
