"""One post-LayerNorm Transformer block, as in BERT."""

import keras

from modeling.activations import get_activation
from modeling.attention import SelfAttention
from modeling.dense import Dense
from modeling.initializers import bert_initializer
from modeling.layer_norm import LayerNorm


class TransformerLayer(keras.layers.Layer):
    """Self-attention -> dropout -> add & LayerNorm -> feed-forward -> dropout -> add & LayerNorm.

    Example:
    >>> block = TransformerLayer(num_heads=12, hidden_size=768, intermediate_size=3072)
    >>> block(x, attention_mask)  # x: [batch, seq, 768]
    """

    def __init__(self, num_heads, hidden_size, intermediate_size, hidden_act="gelu",
                 dropout_rate=0.1, attention_dropout_rate=0.1, initializer_range=0.02,
                 layer_norm_eps=1e-12, **kwargs):
        super().__init__(**kwargs)
        self.num_heads = num_heads
        self.hidden_size = hidden_size
        self.intermediate_size = intermediate_size
        self.hidden_act = hidden_act
        self.dropout_rate = dropout_rate
        self.attention_dropout_rate = attention_dropout_rate
        self.initializer_range = initializer_range
        self.layer_norm_eps = layer_norm_eps
        policy = self.dtype_policy
        init = bert_initializer(initializer_range)
        self.self_attention = SelfAttention(
            num_heads, hidden_size // num_heads, attention_dropout_rate, initializer_range,
            dtype=policy, name="self_attention")
        self.attention_dropout = keras.layers.Dropout(dropout_rate, dtype=policy)
        self.attention_layer_norm = LayerNorm(
            epsilon=layer_norm_eps, dtype=policy, name="attention_layer_norm")
        self.intermediate = Dense(
            intermediate_size, activation=get_activation(hidden_act), kernel_initializer=init,
            dtype=policy, name="intermediate")
        self.output_dense = Dense(
            hidden_size, kernel_initializer=init, dtype=policy, name="output")
        self.output_dropout = keras.layers.Dropout(dropout_rate, dtype=policy)
        self.output_layer_norm = LayerNorm(
            epsilon=layer_norm_eps, dtype=policy, name="output_layer_norm")

    def build(self, inputs_shape, attention_mask_shape=None):
        self.self_attention.build(inputs_shape)
        self.attention_layer_norm.build(inputs_shape)
        self.intermediate.build(inputs_shape)
        self.output_dense.build(tuple(inputs_shape[:-1]) + (self.intermediate_size,))
        self.output_layer_norm.build(inputs_shape)
        self.built = True

    def call(self, inputs, attention_mask, training=None):
        attention = self.self_attention(inputs, attention_mask, training=training)
        attention = self.attention_dropout(attention, training=training)
        x = self.attention_layer_norm(inputs + attention)
        ffn = self.output_dense(self.intermediate(x))
        ffn = self.output_dropout(ffn, training=training)
        return self.output_layer_norm(x + ffn)

    def compute_output_shape(self, inputs_shape, attention_mask_shape=None):
        return inputs_shape

    def get_config(self):
        config = super().get_config()
        config.update(
            num_heads=self.num_heads, hidden_size=self.hidden_size,
            intermediate_size=self.intermediate_size, hidden_act=self.hidden_act,
            dropout_rate=self.dropout_rate, attention_dropout_rate=self.attention_dropout_rate,
            initializer_range=self.initializer_range, layer_norm_eps=self.layer_norm_eps)
        return config
