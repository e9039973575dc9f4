"""Fine-tuning models: an encoder (any family, see `modeling.encoder_interface`)
plus one small output layer per task. Each is rebuilt from its `get_config`
alone (the encoder serialized inside it)."""

import keras
from keras import ops

from modeling.encoder_interface import ENCODER_INPUTS, check_encoder
from modeling.heads import (ClassificationHead, MultipleChoiceHead, SpanHead,
                            TokenClassificationHead)
from families.xlnet.squad_head import XLNetSquadHead


def encoder_inputs(encoder, shape=(None,)):
    """Keras inputs for `encoder` (checked against `modeling.encoder_interface`),
    int32 of `shape` after the batch."""
    check_encoder(encoder)
    return {name: keras.Input(shape=shape, dtype="int32", name=name) for name in ENCODER_INPUTS}


class FlattenChoices(keras.layers.Layer):
    """[batch, choices, seq] -> [batch * choices, seq]."""

    def call(self, inputs):
        return ops.reshape(inputs, (-1, ops.shape(inputs)[-1]))

    def compute_output_shape(self, inputs_shape):
        return (None, inputs_shape[-1])


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
        config = dict(config)
        config["encoder"] = keras.saving.deserialize_keras_object(config["encoder"])
        return cls(**config)


class TaskModel(TaskModelConfig, keras.Model):
    """A functional task model. Keras turns this class's base into `Functional`
    when the first one is built, so a subclassed task model derives from
    `TaskModelConfig` and `keras.Model` instead."""


@keras.saving.register_keras_serializable(package="bert_garden")
class SequenceClassifier(TaskModel):
    """Dense layer on the encoder's pooled output (BERT's [CLS]; a causal
    encoder's last real token; XLNet's summary): `logits` [batch, num_classes]
    (num_classes=1 gives a regression score, as STS-B)."""

    def __init__(self, encoder, num_classes, dropout_rate=0.1, **kwargs):
        inputs = encoder_inputs(encoder)
        head = ClassificationHead(num_classes, dropout_rate, encoder.config.initializer_range,
                                  dtype=encoder.dtype_policy, name="classifier")
        logits = head(encoder(inputs)["pooled_output"])
        super().__init__(inputs=inputs, outputs={"logits": logits}, **kwargs)
        self._store(encoder, num_classes=num_classes, dropout_rate=dropout_rate)


@keras.saving.register_keras_serializable(package="bert_garden")
class SpanLabeler(TaskModel):
    """Start/end vectors over the tokens: `start_logits`, `end_logits` [batch, seq] (SQuAD)."""

    def __init__(self, encoder, **kwargs):
        inputs = encoder_inputs(encoder)
        head = SpanHead(encoder.config.initializer_range, dtype=encoder.dtype_policy,
                        name="span")
        start, end = head(encoder(inputs)["sequence_output"])
        super().__init__(inputs=inputs, outputs={"start_logits": start, "end_logits": end},
                         **kwargs)
        self._store(encoder)


@keras.saving.register_keras_serializable(package="bert_garden")
class XLNetSpanLabeler(TaskModelConfig, keras.Model):
    """XLNet's SQuAD 2.0 model as the original `run_squad.py`: the encoder's
    `sequence_output` into `XLNetSquadHead`.

    Inputs: the encoder's, `p_mask` float32 [batch, seq] (1.0 where no answer may
    start or end), `cls_index` int32 [batch] and, in training, `start_positions`
    int32 [batch] (the end is conditioned on it). Outputs: with `start_positions`,
    `start_log_probs`, `end_log_probs` [batch, seq]; without, the beam
    `start_top_log_probs`, `start_top_index` [batch, start_n_top],
    `end_top_log_probs`, `end_top_index` [batch, start_n_top * end_n_top]; both
    `cls_logits` [batch] (the answer class: > 0 leans to "no answer"). Not a
    functional model: which outputs it gives depends on the inputs.

    Example:
    >>> model = XLNetSpanLabeler(XLNetEncoder(config), start_n_top=5, end_n_top=5)
    >>> model({**encoder_inputs, "p_mask": p_mask, "cls_index": cls_index})["end_top_index"].shape
    (batch, 25)
    """

    def __init__(self, encoder, start_n_top=5, end_n_top=5, dropout_rate=0.1, **kwargs):
        super().__init__(**kwargs)
        check_encoder(encoder)
        config = encoder.config
        self.head = XLNetSquadHead(config.hidden_size, start_n_top, end_n_top, dropout_rate,
                                   config.initializer_range, config.layer_norm_eps,
                                   dtype=encoder.dtype_policy, name="squad")
        self.head.build((None, None, config.hidden_size))
        self._store(encoder, start_n_top=start_n_top, end_n_top=end_n_top,
                    dropout_rate=dropout_rate)

    def build(self, input_shape=None):
        self.built = True

    def call(self, inputs, training=None):
        sequence = self.encoder({name: inputs[name] for name in ENCODER_INPUTS},
                                training=training)["sequence_output"]
        return self.head(sequence, inputs["p_mask"], inputs["cls_index"],
                         inputs.get("start_positions"), training=training)


@keras.saving.register_keras_serializable(package="bert_garden")
class TokenClassifier(TaskModel):
    """Dense layer per token: `logits` [batch, seq, num_labels] (NER, no CRF)."""

    def __init__(self, encoder, num_labels, dropout_rate=0.1, **kwargs):
        inputs = encoder_inputs(encoder)
        head = TokenClassificationHead(num_labels, dropout_rate, encoder.config.initializer_range,
                                       dtype=encoder.dtype_policy, name="token_classifier")
        logits = head(encoder(inputs)["sequence_output"])
        super().__init__(inputs=inputs, outputs={"logits": logits}, **kwargs)
        self._store(encoder, num_labels=num_labels, dropout_rate=dropout_rate)


@keras.saving.register_keras_serializable(package="bert_garden")
class MultipleChoiceClassifier(TaskModel):
    """Inputs [batch, choices, seq]; every choice goes through the encoder as one
    [batch * choices, seq] batch; one vector V scores each pooled output:
    `logits` [batch, choices] for a softmax over the choices (SWAG)."""

    def __init__(self, encoder, dropout_rate=0.1, **kwargs):
        inputs = encoder_inputs(encoder, shape=(None, None))
        head = MultipleChoiceHead(dropout_rate, encoder.config.initializer_range,
                                  dtype=encoder.dtype_policy, name="choice_scorer")
        flat = {k: FlattenChoices(name=f"flatten_{k}")(v) for k, v in inputs.items()}
        scores = head(encoder(flat)["pooled_output"])
        # float32 logits under mixed precision too, as every other task model returns.
        logits = UnflattenChoices(dtype="float32", name="unflatten_scores")(
            scores, inputs["input_word_ids"])
        super().__init__(inputs=inputs, outputs={"logits": logits}, **kwargs)
        self._store(encoder, dropout_rate=dropout_rate)


# The names earlier versions registered these models under, as their exports'
# `export_meta.json` task-model configs still say.
for _earlier, _model in {"BertClassifier": SequenceClassifier, "BertSpanLabeler": SpanLabeler,
                         "BertTokenClassifier": TokenClassifier,
                         "BertMultipleChoice": MultipleChoiceClassifier}.items():
    keras.saving.get_custom_objects()[f"bert_garden>{_earlier}"] = _model
