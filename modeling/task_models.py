"""What every task model shares: an encoder (any family, see
`modeling.encoder_interface`) with the inputs it declares, its auxiliary loss,
choices flattened into the batch and back, and the config handling that
rebuilds a task model from its `get_config` alone (the encoder serialized
inside it). Each task's own models (the encoder plus one small output layer,
and its feature-based model) live in its home, `tasks/<name>/model.py`."""

import keras
from keras import ops

from contracts import registry
from modeling.encoder_interface import check_encoder, input_specs


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
