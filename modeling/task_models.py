"""Fine-tuning models: an encoder (any family, see `modeling.encoder_interface`)
plus one small output layer per task. Each is rebuilt from its `get_config`
alone (the encoder serialized inside it)."""

import keras
from keras import ops

from contracts import registry
from modeling.crf import tagging_outputs
from modeling.encoder_interface import check_encoder, input_specs
from modeling.heads import (OUTPUT_DTYPE, ClassificationHead, MultipleChoiceHead, SpanHead,
                            TokenClassificationHead)


def encoder_inputs(encoder, leading=()):
    """Keras inputs for `encoder` (checked against `modeling.encoder_interface`),
    as it declares them, with `leading` axes after the batch (multiple choice's
    choices)."""
    check_encoder(encoder)
    return {name: keras.Input(shape=leading + shape, dtype=dtype, name=name)
            for name, (shape, dtype) in input_specs(encoder).items()}


def with_auxiliary_loss(encoder, inputs, encoded, outputs, choices_of=None):
    """`outputs` plus the encoder's `auxiliary_loss` [batch] times
    `config.auxiliary_loss_weight` when it has one (see
    `modeling.encoder_interface`); with `choices_of` (the [batch, choices, ...]
    inputs) the mean over each example's choices."""
    if not hasattr(encoder, "auxiliary_loss"):
        return outputs
    loss = encoder.auxiliary_loss(inputs, encoded) * encoder.config.auxiliary_loss_weight
    if choices_of is not None:
        loss = ops.mean(UnflattenChoices(dtype="float32", name="unflatten_auxiliary_loss")(
            loss[:, None], choices_of), axis=1)
    return {**outputs, "auxiliary_loss": loss}


class FlattenChoices(keras.layers.Layer):
    """[batch, choices, seq, ...] -> [batch * choices, seq, ...]."""

    def call(self, inputs):
        return ops.reshape(inputs, (-1, *ops.shape(inputs)[2:]))

    def compute_output_shape(self, inputs_shape):
        return (None, *inputs_shape[2:])


class UnflattenChoices(keras.layers.Layer):
    """[batch * choices, 1] scores -> [batch, choices], choices read from `reference`."""

    def call(self, scores, reference):
        return ops.reshape(scores, (-1, ops.shape(reference)[1]))

    def compute_output_shape(self, scores_shape, reference_shape):
        return (reference_shape[0], reference_shape[1])


class TaskModelConfig:
    """Shared config handling: each task model is rebuilt from its encoder and kwargs."""

    def _store(self, encoder, **task_kwargs):
        self.encoder = encoder
        self.task_kwargs = task_kwargs

    def get_config(self):
        return {"encoder": keras.saving.serialize_keras_object(self.encoder),
                **self.task_kwargs, "name": self.name, "trainable": self.trainable}

    @classmethod
    def from_config(cls, config):
        registry.families()  # every family's encoder class registered before one is rebuilt
        config = dict(config)
        config["encoder"] = keras.saving.deserialize_keras_object(config["encoder"])
        return cls(**config)


class TaskModel(TaskModelConfig, keras.Model):
    """A functional task model. Keras turns this class's base into `Functional`
    when the first one is built, so a subclassed task model derives from
    `TaskModelConfig` and `keras.Model` instead."""


class SumOrders(keras.layers.Layer):
    """[batch * 2, hidden] pooled vectors of a pair in both orders -> their sum [batch, hidden]."""

    def call(self, pooled):
        return ops.sum(ops.reshape(pooled, (-1, 2, pooled.shape[-1])), axis=1)

    def compute_output_shape(self, pooled_shape):
        return (None, pooled_shape[-1])


@keras.saving.register_keras_serializable(package="bert_garden")
class SequenceClassifier(TaskModel):
    """Dense layer on the encoder's pooled output (BERT's [CLS]; a causal
    encoder's last real token; XLNet's summary): `logits` [batch, num_classes]
    (num_classes=1 gives a regression score, as STS-B).

    With `both_orders` the inputs are [batch, 2, seq], a pair packed as (A, B)
    and as (B, A) (`data.classification.features`); each order is encoded
    alone and the two pooled vectors are summed element-wise before the dense
    layer, so the logits do not depend on the order (GPT's similarity
    transformation); the auxiliary loss is the mean over the two orders."""

    def __init__(self, encoder, num_classes, dropout_rate=0.1, both_orders=False, **kwargs):
        inputs = encoder_inputs(encoder, leading=(2,) if both_orders else ())
        head = ClassificationHead(num_classes, dropout_rate, encoder.config.initializer_range,
                                  dtype=OUTPUT_DTYPE, name="classifier")
        if both_orders:
            flat = {k: FlattenChoices(name=f"flatten_{k}")(v) for k, v in inputs.items()}
            encoded = encoder(flat)
            pooled = SumOrders(dtype=encoder.dtype_policy, name="sum_orders")(encoded["pooled_output"])
            outputs = with_auxiliary_loss(encoder, flat, encoded, {"logits": head(pooled)},
                                          choices_of=inputs["input_mask"])
        else:
            encoded = encoder(inputs)
            outputs = with_auxiliary_loss(encoder, inputs, encoded,
                                          {"logits": head(encoded["pooled_output"])})
        super().__init__(inputs=inputs, outputs=outputs, **kwargs)
        self.both_orders = both_orders
        self._store(encoder, num_classes=num_classes, dropout_rate=dropout_rate,
                    both_orders=both_orders)


class NullFromPooled(keras.layers.Layer):
    """The sequence output with position 0 replaced by the pooled vector."""

    def call(self, sequence_output, pooled_output):
        return ops.concatenate([ops.expand_dims(pooled_output, 1), sequence_output[:, 1:]], axis=1)

    def compute_output_shape(self, sequence_output_shape, pooled_output_shape):
        return sequence_output_shape


@keras.saving.register_keras_serializable(package="bert_garden")
class SpanLabeler(TaskModel):
    """Start/end vectors over the tokens: `start_logits`, `end_logits` [batch, seq] (SQuAD).

    Position 0 scores the null answer (BERT's [CLS]). With `null_from_pooled`
    it is scored from the encoder's pooled vector instead of position 0's
    state: for a causal encoder whose first token has seen nothing (GPT's
    `_start_`, the same state in every window) the pooled vector is the last
    real token's, the one that has read the whole window."""

    def __init__(self, encoder, null_from_pooled=False, **kwargs):
        inputs = encoder_inputs(encoder)
        head = SpanHead(encoder.config.initializer_range, dtype=OUTPUT_DTYPE,
                        name="span")
        encoded = encoder(inputs)
        sequence = encoded["sequence_output"]
        if null_from_pooled:
            sequence = NullFromPooled(dtype=encoder.dtype_policy, name="null_from_pooled")(
                sequence, encoded["pooled_output"])
        start, end = head(sequence)
        outputs = {"start_logits": start, "end_logits": end}
        super().__init__(inputs=inputs, outputs=with_auxiliary_loss(encoder, inputs, encoded, outputs),
                         **kwargs)
        self._store(encoder, null_from_pooled=null_from_pooled)


@keras.saving.register_keras_serializable(package="bert_garden")
class TokenClassifier(TaskModel):
    """Dense layer per token: `logits` [batch, seq, num_labels] (NER, no CRF, as
    the paper); with `crf` also a linear-chain CRF's transitions
    (`modeling.crf`: `crf_transitions`, layer "crf")."""

    def __init__(self, encoder, num_labels, dropout_rate=0.1, crf=False, **kwargs):
        inputs = encoder_inputs(encoder)
        head = TokenClassificationHead(num_labels, dropout_rate, encoder.config.initializer_range,
                                       dtype=OUTPUT_DTYPE, name="token_classifier")
        encoded = encoder(inputs)
        outputs = tagging_outputs(head(encoded["sequence_output"]), num_labels, crf)
        super().__init__(inputs=inputs, **kwargs,
                         outputs=with_auxiliary_loss(encoder, inputs, encoded, outputs))
        self._store(encoder, num_labels=num_labels, dropout_rate=dropout_rate, crf=crf)


@keras.saving.register_keras_serializable(package="bert_garden")
class MultipleChoiceClassifier(TaskModel):
    """Inputs [batch, choices, seq]; every choice goes through the encoder as one
    [batch * choices, seq] batch; one vector V scores each pooled output:
    `logits` [batch, choices] for a softmax over the choices (SWAG)."""

    def __init__(self, encoder, dropout_rate=0.1, **kwargs):
        inputs = encoder_inputs(encoder, leading=(None,))
        head = MultipleChoiceHead(dropout_rate, encoder.config.initializer_range,
                                  dtype=OUTPUT_DTYPE, name="choice_scorer")
        flat = {k: FlattenChoices(name=f"flatten_{k}")(v) for k, v in inputs.items()}
        encoded = encoder(flat)
        scores = head(encoded["pooled_output"])
        # float32 logits under mixed precision too, as every other task model returns.
        logits = UnflattenChoices(dtype="float32", name="unflatten_scores")(
            scores, inputs["input_mask"])
        super().__init__(inputs=inputs, **kwargs,
                         outputs=with_auxiliary_loss(encoder, flat, encoded, {"logits": logits},
                                                     choices_of=inputs["input_mask"]))
        self._store(encoder, dropout_rate=dropout_rate)


# The names earlier versions registered these models under, as their exports'
# `export_meta.json` task-model configs still say.
for _earlier, _model in {"BertClassifier": SequenceClassifier, "BertSpanLabeler": SpanLabeler,
                         "BertTokenClassifier": TokenClassifier,
                         "BertMultipleChoice": MultipleChoiceClassifier}.items():
    keras.saving.get_custom_objects()[f"bert_garden>{_earlier}"] = _model
