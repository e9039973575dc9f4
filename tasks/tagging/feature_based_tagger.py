"""The paper's feature-based tagger (section 5.4): a frozen BERT, some of its
layers combined, then a randomly initialised BiLSTM and a per-token classifier.

Layer combinations (Table 7 of the paper), by name:

| name | features per token |
| --- | --- |
| `embeddings` | the embedding layer's output |
| `second_to_last` | the second-to-last Transformer layer |
| `last` | the last Transformer layer |
| `weighted_sum_all` | softmax-weighted sum of all Transformer layers (weights learned) |
| `sum_last_four` | sum of the last four layers |
| `concat_last_four` | the last four layers side by side (4 x hidden) |
"""

import keras
from keras import ops

from modeling.crf import tagging_outputs
from modeling.dense import Dense
from modeling.heads import OUTPUT_DTYPE
from modeling.initializers import bert_initializer
from modeling.task_models import TaskModel, encoder_inputs

LAYER_COMBINATIONS = ("embeddings", "second_to_last", "last", "weighted_sum_all",
                      "sum_last_four", "concat_last_four")
# Fewest Transformer layers each combination needs.
_MIN_LAYERS = {"second_to_last": 2, "sum_last_four": 4, "concat_last_four": 4}


def encoder_layer_outputs(encoder):
    """A model sharing `encoder`'s layers that returns [embeddings, layer_1, ..., layer_L]."""
    return keras.Model(encoder.input,
                       [encoder.embeddings.output] + list(encoder.output["encoder_outputs"]),
                       name="layer_outputs")


class FrozenLayerOutputs(keras.layers.Layer):
    """`encoder_layer_outputs` always in inference mode: a `training=False` given
    when building a functional model does not outlive a later `training=True` call."""

    def __init__(self, encoder, **kwargs):
        super().__init__(**kwargs)
        self.layer_outputs = encoder_layer_outputs(encoder)
        self.num_outputs = 1 + encoder.config.num_hidden_layers
        self.hidden_size = encoder.config.hidden_size

    def call(self, inputs):
        return self.layer_outputs(inputs, training=False)

    def compute_output_shape(self, inputs_shape):
        shape = tuple(inputs_shape["input_word_ids"]) + (self.hidden_size,)
        return [shape] * self.num_outputs


@keras.saving.register_keras_serializable(package="bert_garden")
class LayerCombination(keras.layers.Layer):
    """Combines the list [embeddings, layer_1, ..., layer_L] into one tensor per token."""

    def __init__(self, combination, **kwargs):
        super().__init__(**kwargs)
        if combination not in LAYER_COMBINATIONS:
            raise ValueError(f"layer combination must be one of {LAYER_COMBINATIONS}, "
                             f"got {combination!r}")
        self.combination = combination

    def build(self, layers_shape):
        num_layers = len(layers_shape) - 1
        needed = _MIN_LAYERS.get(self.combination, 1)
        if num_layers < needed:
            raise ValueError(f"{self.combination} needs an encoder of at least {needed} "
                             f"layers, this one has {num_layers}")
        if self.combination == "weighted_sum_all":
            self.layer_weights = self.add_weight(name="layer_weights", shape=(num_layers,),
                                                 initializer="zeros")
        self.built = True

    def call(self, layers):
        transformer_layers = layers[1:]
        if self.combination == "embeddings":
            return layers[0]
        if self.combination == "second_to_last":
            return transformer_layers[-2]
        if self.combination == "last":
            return transformer_layers[-1]
        if self.combination == "weighted_sum_all":
            weights = ops.cast(ops.softmax(self.layer_weights), transformer_layers[0].dtype)
            return sum(weights[i] * layer for i, layer in enumerate(transformer_layers))
        if self.combination == "sum_last_four":
            return sum(transformer_layers[-4:])
        return ops.concatenate(transformer_layers[-4:], axis=-1)

    def compute_output_shape(self, layers_shape):
        shape = tuple(layers_shape[-1])
        if self.combination == "concat_last_four":
            return shape[:-1] + (4 * shape[-1],)
        return shape

    def get_config(self):
        return {**super().get_config(), "combination": self.combination}


@keras.saving.register_keras_serializable(package="bert_garden")
class FeatureBasedTagger(TaskModel):
    """Frozen encoder -> `LayerCombination` -> BiLSTM (`lstm_layers` x `lstm_units`
    per direction, over word pieces, padding masked) -> dropout -> dense:
    `logits` [batch, seq, num_labels]; with `crf` also a linear-chain CRF's
    transitions (`modeling.crf`: `crf_transitions`, layer "crf"). Only the
    combination weights, the BiLSTM, the classifier and the CRF train; the
    encoder runs in inference mode (no dropout).

    Example:
    >>> model = FeatureBasedTagger(encoder, num_labels=9, layer_combination="concat_last_four")
    >>> model(inputs)["logits"].shape
    (batch, seq, 9)
    """

    def __init__(self, encoder, num_labels, layer_combination="concat_last_four",
                 lstm_units=768, lstm_layers=2, dropout_rate=0.1, crf=False, **kwargs):
        dtype = encoder.dtype_policy
        # === Layers ===
        layer_outputs = FrozenLayerOutputs(encoder, dtype=dtype, name="frozen_encoder")
        combine = LayerCombination(layer_combination, dtype=dtype, name="layer_combination")
        bilstms = [keras.layers.Bidirectional(
            keras.layers.LSTM(lstm_units, return_sequences=True, dtype=dtype, name=f"lstm_{i}"),
            dtype=dtype, name=f"bilstm_{i}") for i in range(lstm_layers)]
        dropout = keras.layers.Dropout(dropout_rate, dtype=dtype, name="dropout")
        classifier = Dense(
            num_labels, kernel_initializer=bert_initializer(encoder.config.initializer_range),
            dtype=OUTPUT_DTYPE, name="token_classifier")

        # === Functional model ===
        inputs = encoder_inputs(encoder)
        x = combine(layer_outputs(inputs))
        mask = ops.cast(inputs["input_mask"], "bool")
        for bilstm in bilstms:
            x = bilstm(x, mask=mask)
        outputs = tagging_outputs(classifier(dropout(x)), num_labels, crf)
        super().__init__(inputs=inputs, outputs=outputs, **kwargs)
        # Frozen after the model's own `trainable` is set, which would undo it. Layer
        # by layer: `encoder.trainable = False` does not reach the layers when the
        # encoder is already marked untrainable (as when rebuilt from a config).
        encoder.trainable = False
        for layer in encoder.layers:
            layer.trainable = False
        self._store(encoder, num_labels=num_labels, layer_combination=layer_combination,
                    lstm_units=lstm_units, lstm_layers=lstm_layers, dropout_rate=dropout_rate,
                    crf=crf)
