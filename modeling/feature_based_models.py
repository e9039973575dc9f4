"""Task models that read an encoder as features, as the ELMo paper uses its
biLM: every layer of the encoder (`encoder_outputs`) mixed into one vector per
token by the mix layer the family's record names (`Family.feature_based`:
ELMo's `ScalarMix`, learned with the task), dropout, a task BiLSTM, then one
small head per task. The encoder is frozen (run in inference mode, its weights
not trained) unless `fine_tune_encoder`; the mix, the BiLSTM and the head
always train. A family whose record declares `feature_based` gets these
models from every task by default (`feature_based_model`).

| model | head over the BiLSTM states | outputs |
| --- | --- | --- |
| `FeatureBasedClassifier` | max and mean over real tokens, dense | `logits` [batch, classes] |
| `FeatureBasedTokenClassifier` | dense per token (and a CRF) | `logits` [batch, seq, labels] |
| `FeatureBasedSpanLabeler` | start: dense; end: a second BiLSTM, dense | `start_logits`, `end_logits` [batch, seq] |
| `FeatureBasedMultipleChoice` | each choice as the classifier, one score | `logits` [batch, choices] |

The mix's own losses (ELMo's L2 on its weights) are Keras regularization
losses of the model, which the trainer adds to the training loss.
"""

import keras
from keras import ops

from families import registry
from modeling.crf import tagging_outputs
from modeling.dense import Dense
from modeling.heads import OUTPUT_DTYPE
from modeling.initializers import bert_initializer
from modeling.task_models import FlattenChoices, TaskModel, UnflattenChoices, encoder_inputs


def feature_based(encoder):
    """The record's `FeatureBased` of `encoder`'s family, or None."""
    return registry.family_of(encoder.config).feature_based


class EncoderLayers(keras.layers.Layer):
    """The encoder's `encoder_outputs`, in inference mode when `frozen` (a
    `training=False` given when building a functional model does not outlive
    a later `training=True` call)."""

    def __init__(self, encoder, frozen, **kwargs):
        super().__init__(**kwargs)
        self.encoder, self.frozen = encoder, frozen

    def call(self, inputs, training=None):
        return list(self.encoder(inputs, training=False if self.frozen else training)["encoder_outputs"])


class MaskedPooling(keras.layers.Layer):
    """[batch, seq, dim] states, [batch, seq] mask -> [batch, 2 * dim]: the max
    and the mean over real tokens (zeros for a row without any)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True  # it reads the mask it is given; none goes on

    def compute_mask(self, states, mask=None):
        return None

    def call(self, states, mask):
        real = ops.expand_dims(ops.cast(mask, states.dtype), -1)
        count = ops.maximum(ops.sum(real, axis=1), 1.0)
        mean = ops.sum(states * real, axis=1) / count
        lowest = ops.min(states, axis=(1, 2), keepdims=True) - 1.0
        largest = ops.max(ops.where(real > 0, states, lowest), axis=1)
        largest = ops.where(ops.sum(real, axis=1) > 0, largest, ops.zeros_like(largest))
        return ops.concatenate([largest, mean], axis=-1)


def _bilstms(units, layers, dtype, prefix="bilstm"):
    return [keras.layers.Bidirectional(
        keras.layers.LSTM(units, return_sequences=True, dtype=dtype, name=f"lstm_{i}"),
        dtype=dtype, name=f"{prefix}_{i}") for i in range(layers)]


class OneMoreStep(keras.layers.Layer):
    """(x [batch, seq, dim], mask [batch, seq]) -> both with one masked zero
    step more at the end. Keras's LSTM cannot run zero steps (a batch of rows
    without tokens, which serving may send), and a masked step after the real
    ones changes none of their outputs in either direction."""

    def call(self, x, mask):
        return ops.pad(x, [[0, 0], [0, 1], [0, 0]]), ops.pad(ops.cast(mask, "bool"), [[0, 0], [0, 1]])


class FirstSteps(keras.layers.Layer):
    """(x [batch, steps, dim], like [batch, seq]) -> x's first seq steps; the
    Keras mask the BiLSTM put on x (one step longer) goes no further: every
    reader downstream takes the input mask explicitly."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def compute_mask(self, x, mask=None):
        return None

    def call(self, x, like):
        return x[:, :ops.shape(like)[1]]


def _run_bilstms(bilstms, x, mask, name):
    """`bilstms` in turn over x [batch, seq, dim] (padding masked), on
    `OneMoreStep` so that a sequence of zero steps runs too."""
    steps, step_mask = OneMoreStep(name=f"{name}_one_more_step")(x, mask)
    for bilstm in bilstms:
        steps = bilstm(steps, mask=step_mask)
    return FirstSteps(name=f"{name}_first_steps")(steps, mask)


class FeatureReader:
    """The shared trunk: encoder layers -> the family's mix -> dropout -> BiLSTMs."""

    def __init__(self, encoder, dropout_rate, lstm_units, lstm_layers, fine_tune_encoder):
        parts = feature_based(encoder)
        if parts is None:
            raise ValueError(f"the {registry.family_of(encoder.config).name} family declares no "
                             "feature-based use (its record's `feature_based`)")
        dtype = encoder.dtype_policy
        self.lstm_units = lstm_units or parts.lstm_units
        self.lstm_layers = lstm_layers or parts.lstm_layers
        self.layers = EncoderLayers(encoder, not fine_tune_encoder, dtype=dtype, name="encoder_layers")
        self.mix = parts.mix(dtype=dtype, name="mix")
        self.dropout = keras.layers.Dropout(dropout_rate, dtype=dtype, name="mix_dropout")
        self.bilstms = _bilstms(self.lstm_units, self.lstm_layers, dtype)

    def __call__(self, inputs):
        """(BiLSTM states [batch, seq, 2 * units], input_mask)."""
        mask = inputs["input_mask"]
        x = self.dropout(self.mix(self.layers(inputs), mask))
        return _run_bilstms(self.bilstms, x, mask, "bilstm"), mask


def _dense(units, encoder, name):
    return Dense(units, kernel_initializer=bert_initializer(encoder.config.initializer_range),
                 dtype=OUTPUT_DTYPE, name=name)


def _pooled(reader, inputs, encoder, dropout_rate):
    """The reader's states of `inputs`, max- and mean-pooled, then dropout."""
    states, mask = reader(inputs)
    return keras.layers.Dropout(dropout_rate, name="pool_dropout")(
        MaskedPooling(dtype=encoder.dtype_policy, name="pool")(states, mask))


class FeatureBasedModel(TaskModel):
    """What every model here shares: the frozen encoder (unless
    `fine_tune_encoder`) and its stored settings."""

    def _finish(self, encoder, reader, dropout_rate, fine_tune_encoder, **task_kwargs):
        # After the model's own `trainable` is set, which would undo it; layer by
        # layer, as `modeling.feature_based_tagger.FeatureBasedTagger` does.
        if not fine_tune_encoder:
            encoder.trainable = False
            for layer in encoder.layers:
                layer.trainable = False
        self._store(encoder, dropout_rate=dropout_rate, lstm_units=reader.lstm_units,
                    lstm_layers=reader.lstm_layers, fine_tune_encoder=fine_tune_encoder, **task_kwargs)


@keras.saving.register_keras_serializable(package="bert_garden")
class FeatureBasedClassifier(FeatureBasedModel):
    """`logits` [batch, num_classes] (one column: a regression score)."""

    def __init__(self, encoder, num_classes, dropout_rate=0.1, lstm_units=None, lstm_layers=None,
                 fine_tune_encoder=False, **kwargs):
        inputs = encoder_inputs(encoder)
        reader = FeatureReader(encoder, dropout_rate, lstm_units, lstm_layers, fine_tune_encoder)
        pooled = _pooled(reader, inputs, encoder, dropout_rate)
        logits = ops.cast(_dense(num_classes, encoder, "classifier")(pooled), "float32")
        super().__init__(inputs=inputs, outputs={"logits": logits}, **kwargs)
        self._finish(encoder, reader, dropout_rate, fine_tune_encoder, num_classes=num_classes)


@keras.saving.register_keras_serializable(package="bert_garden")
class FeatureBasedTokenClassifier(FeatureBasedModel):
    """`logits` [batch, seq, num_labels] (NER); with `crf` also a linear-chain
    CRF's transitions (`modeling.crf`: `crf_transitions`, layer "crf"), the
    ELMo paper's NER output layer."""

    def __init__(self, encoder, num_labels, dropout_rate=0.1, lstm_units=None, lstm_layers=None,
                 fine_tune_encoder=False, crf=False, **kwargs):
        inputs = encoder_inputs(encoder)
        reader = FeatureReader(encoder, dropout_rate, lstm_units, lstm_layers, fine_tune_encoder)
        states, _ = reader(inputs)
        states = keras.layers.Dropout(dropout_rate, name="states_dropout")(states)
        logits = _dense(num_labels, encoder, "token_classifier")(states)
        super().__init__(inputs=inputs, outputs=tagging_outputs(logits, num_labels, crf), **kwargs)
        self._finish(encoder, reader, dropout_rate, fine_tune_encoder, num_labels=num_labels, crf=crf)


@keras.saving.register_keras_serializable(package="bert_garden")
class FeatureBasedSpanLabeler(FeatureBasedModel):
    """`start_logits`, `end_logits` [batch, seq] (SQuAD): the start read from the
    BiLSTM states, the end from a second BiLSTM over them (BiDAF's output layer,
    which ELMo's SQuAD model builds on)."""

    def __init__(self, encoder, dropout_rate=0.1, lstm_units=None, lstm_layers=None,
                 fine_tune_encoder=False, **kwargs):
        inputs = encoder_inputs(encoder)
        reader = FeatureReader(encoder, dropout_rate, lstm_units, lstm_layers, fine_tune_encoder)
        states, mask = reader(inputs)
        (end_lstm,) = _bilstms(reader.lstm_units, 1, encoder.dtype_policy, prefix="end_bilstm")
        end_states = _run_bilstms([end_lstm], states, mask, "end_bilstm")
        dropout = keras.layers.Dropout(dropout_rate, name="span_dropout")
        start = _dense(1, encoder, "start")(dropout(states))[..., 0]
        end = _dense(1, encoder, "end")(dropout(ops.concatenate([states, end_states], axis=-1)))[..., 0]
        super().__init__(inputs=inputs, outputs={"start_logits": ops.cast(start, "float32"),
                                                 "end_logits": ops.cast(end, "float32")}, **kwargs)
        self._finish(encoder, reader, dropout_rate, fine_tune_encoder)


@keras.saving.register_keras_serializable(package="bert_garden")
class FeatureBasedMultipleChoice(FeatureBasedModel):
    """Inputs [batch, choices, seq, ...]; each choice read as one sequence,
    pooled as the classifier and scored by one vector: `logits` [batch, choices]."""

    def __init__(self, encoder, dropout_rate=0.1, lstm_units=None, lstm_layers=None,
                 fine_tune_encoder=False, **kwargs):
        inputs = encoder_inputs(encoder, leading=(None,))
        flat = {k: FlattenChoices(name=f"flatten_{k}")(v) for k, v in inputs.items()}
        reader = FeatureReader(encoder, dropout_rate, lstm_units, lstm_layers, fine_tune_encoder)
        scores = _dense(1, encoder, "choice_scorer")(_pooled(reader, flat, encoder, dropout_rate))
        logits = UnflattenChoices(dtype="float32", name="unflatten_scores")(scores, inputs["input_mask"])
        super().__init__(inputs=inputs, outputs={"logits": logits}, **kwargs)
        self._finish(encoder, reader, dropout_rate, fine_tune_encoder)
