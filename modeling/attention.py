"""Multi-head self-attention with separate query/key/value projections (BERT layout)."""

import math

import keras
from keras import ops

from modeling.dense import Dense
from modeling.initializers import bert_initializer


class SelfAttention(keras.layers.Layer):
    """Scaled dot-product self-attention over `num_heads` heads plus the output projection.

    `attention_mask` is boolean [batch, 1 or seq, seq]: True where a query may
    attend to a key (padding and, for the left-to-right ablation, causality).
    Without attention-probability dropout (inference, or rate 0) the fused
    `keras.ops.dot_product_attention` runs, which uses flash/cuDNN kernels where
    the backend has them (on an H100 with JAX: 1.14x the encoder's bf16
    inference throughput). With dropout, JAX on a GPU runs the Pallas kernel of
    `modeling.flash_attention`; elsewhere the explicit softmax.
    """

    def __init__(self, num_heads, head_size, dropout_rate=0.1, initializer_range=0.02, **kwargs):
        super().__init__(**kwargs)
        self.num_heads = num_heads
        self.head_size = head_size
        self.dropout_rate = dropout_rate
        self.initializer_range = initializer_range
        hidden = num_heads * head_size
        dense = dict(kernel_initializer=bert_initializer(initializer_range), dtype=self.dtype_policy)
        self.query = Dense(hidden, name="query", **dense)
        self.key = Dense(hidden, name="key", **dense)
        self.value = Dense(hidden, name="value", **dense)
        self.output_dense = Dense(hidden, name="output", **dense)
        self.dropout = keras.layers.Dropout(dropout_rate, dtype=self.dtype_policy)

    def build(self, inputs_shape, attention_mask_shape=None):
        for layer in (self.query, self.key, self.value, self.output_dense):
            layer.build(inputs_shape)
        self.built = True

    def _split_heads(self, x):
        batch, seq = ops.shape(x)[0], ops.shape(x)[1]
        return ops.reshape(x, (batch, seq, self.num_heads, self.head_size))

    def call(self, inputs, attention_mask, training=None):
        query = self._split_heads(self.query(inputs))
        key = self._split_heads(self.key(inputs))
        value = self._split_heads(self.value(inputs))
        mask = ops.expand_dims(attention_mask, 1)  # [batch, 1 head, q or 1, k]
        batch, seq = ops.shape(inputs)[0], ops.shape(inputs)[1]
        if not (training and self.dropout_rate > 0):
            # cuDNN's fused kernel takes only a full [batch, heads, q, k] mask; given a
            # broadcastable one JAX falls back to the unfused XLA attention.
            mask = ops.broadcast_to(mask, (batch, 1, seq, seq))
            context = ops.dot_product_attention(query, key, value, mask=mask)
        elif self.runs_fused_dropout(inputs.shape[1]):
            from modeling import flash_attention
            seed = keras.random.randint(
                (), 0, 2 ** 31 - 1, dtype="int32", seed=self.dropout.seed_generator)
            context = flash_attention.attention(
                query, key, value, attention_mask, seed, self.dropout_rate)
        else:
            context = self._attention_with_dropout(query, key, value, mask)
        context = ops.reshape(context, (batch, seq, self.num_heads * self.head_size))
        return self.output_dense(context)

    def runs_fused_dropout(self, seq_len):
        """Whether training attention takes the fused dropout kernel: JAX on a GPU."""
        if keras.backend.backend() != "jax":
            return False
        from modeling import flash_attention
        return (flash_attention.on_gpu() and flash_attention.supported(self.head_size, seq_len)
                and flash_attention.works_here())

    def _attention_with_dropout(self, query, key, value, mask):
        scores = ops.einsum("bqhd,bkhd->bhqk", query, key)
        scores = ops.cast(scores, "float32") / math.sqrt(self.head_size)
        probs = ops.softmax(ops.where(mask, scores, -1e9), axis=-1)
        probs = self.dropout(ops.cast(probs, query.dtype), training=True)
        return ops.einsum("bhqk,bkhd->bqhd", probs, value)

    def compute_output_shape(self, inputs_shape, attention_mask_shape=None):
        return inputs_shape

    def get_config(self):
        config = super().get_config()
        config.update(num_heads=self.num_heads, head_size=self.head_size,
                      dropout_rate=self.dropout_rate, initializer_range=self.initializer_range)
        return config
