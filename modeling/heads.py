"""Output heads: one small layer per use in the paper."""

import keras
from keras import ops

from modeling.activations import get_activation
from modeling.dense import Dense
from modeling.initializers import bert_initializer
from modeling.layer_norm import LayerNorm

# Task output layers compute in float32 whatever the mixed-precision policy:
# bfloat16 keeps 8 significant bits, so a regression head's nearly equal scores
# round to one value (a constant STS-B prediction, its Pearson undefined) and
# close logits tie.
OUTPUT_DTYPE = "float32"


def tied_logits(x, table):
    """[..., hidden] times a [vocab, hidden] table (transposed) -> [..., vocab], as one 2-D matmul.

    A 3-D input times a 2-D table is a broadcast batch matmul on TensorFlow, whose
    gradient for the table is one [hidden, vocab] product per batch row, summed
    afterwards: with it the main job's pretraining step (batch 128, 1,442 tokens)
    took 1.4x the CPU time.
    """
    logits = ops.matmul(ops.reshape(x, (-1, x.shape[-1])), ops.transpose(table))
    return ops.reshape(logits, (*ops.shape(x)[:-1], table.shape[0]))


def gather_positions(sequence, positions):
    """[batch, seq, hidden] at int [batch, n] positions -> [batch, n, hidden]."""
    return ops.take_along_axis(sequence, ops.expand_dims(ops.cast(positions, "int32"), -1), axis=1)


@keras.saving.register_keras_serializable(package="bert_garden")
class MaskedLMHead(keras.layers.Layer):
    """Masked-LM head: dense + activation + LayerNorm, then logits through the
    transposed word-embedding table plus an output bias.

    Logits are computed only at `masked_positions`, never over the whole
    sequence: with 20 of 128 positions masked that is 6x less decoder work.
    The decoder is tied to `embedding_layer` (not serialised: pass it again
    when rebuilding from a config).
    """

    def __init__(self, embedding_layer, hidden_act="gelu", initializer_range=0.02,
                 layer_norm_eps=1e-12, **kwargs):
        super().__init__(**kwargs)
        self.embedding_layer = embedding_layer
        self.hidden_act = hidden_act
        self.initializer_range = initializer_range
        self.layer_norm_eps = layer_norm_eps
        self.transform = Dense(
            embedding_layer.output_dim, activation=get_activation(hidden_act),
            kernel_initializer=bert_initializer(initializer_range), dtype=self.dtype_policy,
            name="transform")
        self.layer_norm = LayerNorm(
            epsilon=layer_norm_eps, dtype=self.dtype_policy, name="layer_norm")

    def build(self, sequence_output_shape, masked_positions_shape=None):
        hidden = self.embedding_layer.output_dim
        self.transform.build((None, None, hidden))
        self.layer_norm.build((None, None, hidden))
        self.output_bias = self.add_weight(
            name="output_bias", shape=(self.embedding_layer.input_dim,), initializer="zeros")
        self.built = True

    def call(self, sequence_output, masked_positions):
        x = self.layer_norm(self.transform(gather_positions(sequence_output, masked_positions)))
        table = ops.cast(self.embedding_layer.embeddings, x.dtype)
        logits = tied_logits(x, table)
        return ops.cast(logits, "float32") + ops.cast(self.output_bias, "float32")

    def compute_output_shape(self, sequence_output_shape, masked_positions_shape=None):
        return (sequence_output_shape[0], masked_positions_shape[1] if masked_positions_shape else None,
                self.embedding_layer.input_dim)

    def get_config(self):
        config = super().get_config()
        config.update(hidden_act=self.hidden_act, initializer_range=self.initializer_range,
                      layer_norm_eps=self.layer_norm_eps)
        return config


class _DenseHead(keras.layers.Layer):
    """Dropout then one dense layer with BERT's initialiser; float32 logits."""

    def __init__(self, units, dropout_rate=0.1, initializer_range=0.02, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.dropout_rate = dropout_rate
        self.initializer_range = initializer_range
        self.dropout = keras.layers.Dropout(dropout_rate, dtype=self.dtype_policy)
        self.dense = Dense(
            units, kernel_initializer=bert_initializer(initializer_range),
            dtype=self.dtype_policy, name="dense")

    def build(self, inputs_shape):
        self.dense.build(inputs_shape)
        self.built = True

    def call(self, inputs, training=None):
        return ops.cast(self.dense(self.dropout(inputs, training=training)), "float32")

    def compute_output_shape(self, inputs_shape):
        return tuple(inputs_shape[:-1]) + (self.units,)

    def get_config(self):
        config = super().get_config()
        config.update(units=self.units, dropout_rate=self.dropout_rate,
                      initializer_range=self.initializer_range)
        return config


@keras.saving.register_keras_serializable(package="bert_garden")
class NextSentenceHead(_DenseHead):
    """Is-next / random-next logits [batch, 2] from the pooled [CLS] output."""

    def __init__(self, initializer_range=0.02, **kwargs):
        kwargs.pop("units", None)
        kwargs.pop("dropout_rate", None)
        super().__init__(2, 0.0, initializer_range, **kwargs)


@keras.saving.register_keras_serializable(package="bert_garden")
class ClassificationHead(_DenseHead):
    """Sentence(-pair) classes, or one regression score when units == 1."""


@keras.saving.register_keras_serializable(package="bert_garden")
class TokenClassificationHead(_DenseHead):
    """Per-token label logits [batch, seq, num_labels]."""


@keras.saving.register_keras_serializable(package="bert_garden")
class SpanHead(keras.layers.Layer):
    """Start and end logits [batch, seq] from one [hidden, 2] projection (SQuAD)."""

    def __init__(self, initializer_range=0.02, **kwargs):
        super().__init__(**kwargs)
        self.initializer_range = initializer_range
        self.dense = Dense(
            2, kernel_initializer=bert_initializer(initializer_range), dtype=self.dtype_policy,
            name="dense")

    def build(self, inputs_shape):
        self.dense.build(inputs_shape)
        self.built = True

    def call(self, sequence_output):
        logits = ops.cast(self.dense(sequence_output), "float32")
        return logits[..., 0], logits[..., 1]

    def compute_output_shape(self, inputs_shape):
        return tuple(inputs_shape[:-1]), tuple(inputs_shape[:-1])

    def get_config(self):
        config = super().get_config()
        config.update(initializer_range=self.initializer_range)
        return config


@keras.saving.register_keras_serializable(package="bert_garden")
class MultipleChoiceHead(_DenseHead):
    """One vector V scoring each choice's pooled output; reshaped to [batch, choices]
    by the caller, which knows the number of choices."""

    def __init__(self, dropout_rate=0.1, initializer_range=0.02, **kwargs):
        kwargs.pop("units", None)
        super().__init__(1, dropout_rate, initializer_range, **kwargs)
