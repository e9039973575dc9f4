"""The encoder contract reaches past BERT's inputs: task models take the inputs
an encoder declares (no type ids; character ids [batch, seq, characters]) and
carry a family's auxiliary loss into training."""

import dataclasses

import keras
import numpy as np
import pytest
from keras import ops

from modeling.encoder_interface import input_specs
from modeling.task_models import (MultipleChoiceClassifier, SequenceClassifier, SpanLabeler,
                                  TokenClassifier)
from tasks.base import Task

HIDDEN, CHARACTERS, VOCAB = 8, 4, 20


@dataclasses.dataclass(frozen=True)
class ToyConfig:
    initializer_range: float = 0.02
    hidden_size: int = HIDDEN
    max_position_embeddings: int = None
    auxiliary_loss_weight: float = 0.5
    input_vocab_sizes: dict = dataclasses.field(default_factory=dict)


@keras.saving.register_keras_serializable(package="encoder_contract_test")
class WordsOnlyEncoder(keras.Model):
    """Word ids and a mask, no type ids; pooled at the last real token; an
    auxiliary loss per row (the mean of its real tokens' first feature)."""

    def __init__(self, **kwargs):
        word_ids = keras.Input((None,), dtype="int32", name="input_word_ids")
        mask = keras.Input((None,), dtype="int32", name="input_mask")
        sequence = keras.layers.Embedding(VOCAB, HIDDEN, name="embed")(word_ids)
        last = ops.sum(mask, axis=1) - 1
        pooled = ops.take_along_axis(sequence, last[:, None, None], axis=1)[:, 0]
        super().__init__(inputs={"input_word_ids": word_ids, "input_mask": mask},
                         outputs={"sequence_output": sequence, "pooled_output": pooled,
                                  "encoder_outputs": [sequence]}, **kwargs)
        self.config = ToyConfig(input_vocab_sizes={"input_word_ids": VOCAB})

    def auxiliary_loss(self, inputs, outputs):
        real = ops.cast(inputs["input_mask"], "float32")
        return ops.sum(outputs["sequence_output"][..., 0] * real, axis=1) / ops.sum(real, axis=1)

    def get_config(self):
        return {"name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


@keras.saving.register_keras_serializable(package="encoder_contract_test")
class CharacterEncoder(keras.Model):
    """Character ids [batch, seq, characters] and a mask; a masked-mean pooled vector."""

    def __init__(self, **kwargs):
        chars = keras.Input((None, CHARACTERS), dtype="int32", name="input_char_ids")
        mask = keras.Input((None,), dtype="int32", name="input_mask")
        embedded = keras.layers.Embedding(VOCAB, HIDDEN, name="char_embed")(chars)
        sequence = ops.max(embedded, axis=2)
        real = ops.cast(mask, "float32")[..., None]
        pooled = ops.sum(sequence * real, axis=1) / ops.maximum(ops.sum(real, axis=1), 1.0)
        super().__init__(inputs={"input_char_ids": chars, "input_mask": mask},
                         outputs={"sequence_output": sequence, "pooled_output": pooled,
                                  "encoder_outputs": [sequence]}, **kwargs)
        self.config = ToyConfig(input_vocab_sizes={"input_char_ids": VOCAB})

    def get_config(self):
        return {"name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _inputs(encoder, rng, leading=()):
    """Random inputs as `encoder` declares them, batch 2, 5 positions, the last padding."""
    values = {}
    for name, (shape, _) in input_specs(encoder).items():
        full = (2, *leading, 5, *shape[1:])
        values[name] = (np.ones(full, np.int32) if name == "input_mask"
                        else rng.integers(1, VOCAB, full).astype(np.int32))
    values["input_mask"][..., -1] = 0
    return values


TASK_MODELS = {
    "classifier": (lambda e: SequenceClassifier(e, num_classes=3), {"logits": (2, 3)}, ()),
    "span": (SpanLabeler, {"start_logits": (2, 5), "end_logits": (2, 5)}, ()),
    "tagger": (lambda e: TokenClassifier(e, num_labels=4), {"logits": (2, 5, 4)}, ()),
    "choices": (MultipleChoiceClassifier, {"logits": (2, 3)}, (3,)),
}


@pytest.mark.parametrize("encoder_type", [WordsOnlyEncoder, CharacterEncoder])
@pytest.mark.parametrize("task", sorted(TASK_MODELS))
def test_task_models_take_the_inputs_the_encoder_declares(encoder_type, task):
    build, shapes, leading = TASK_MODELS[task]
    model = build(encoder_type())
    inputs = _inputs(model.encoder, np.random.default_rng(0), leading)
    assert set(model.input) == set(inputs)
    outputs = model(inputs, training=False)
    for name, shape in shapes.items():
        assert tuple(outputs[name].shape) == shape, name
    rebuilt = type(model).from_config(model.get_config())
    rebuilt.set_weights(model.get_weights())
    for name in shapes:
        np.testing.assert_array_equal(ops.convert_to_numpy(rebuilt(inputs, training=False)[name]),
                                      ops.convert_to_numpy(outputs[name]))


class _LossTask(Task):
    """The per-example task loss is 1; what `training_loss` adds is the auxiliary loss."""

    def build_model(self):
        raise NotImplementedError

    def build_dataset(self, split, batch_size, training, input_context=None):
        raise NotImplementedError

    def loss(self, labels, outputs):
        return ops.ones_like(outputs["logits"][:, 0])


@pytest.mark.parametrize("task", ["classifier", "choices"])
def test_an_encoders_auxiliary_loss_is_weighted_and_added_to_the_training_loss(task):
    build, _, leading = TASK_MODELS[task]
    model = build(WordsOnlyEncoder())
    inputs = _inputs(model.encoder, np.random.default_rng(1), leading)
    outputs = model(inputs, training=False)
    flat = {k: v.reshape(-1, *v.shape[1 + len(leading):]) for k, v in inputs.items()}
    own = ops.convert_to_numpy(model.encoder.auxiliary_loss(flat, model.encoder(flat)))
    expected = 0.5 * own.reshape(2, -1).mean(axis=1)  # a choice's losses averaged per example
    np.testing.assert_allclose(ops.convert_to_numpy(outputs["auxiliary_loss"]), expected, rtol=1e-6)
    np.testing.assert_allclose(ops.convert_to_numpy(_LossTask().training_loss({}, outputs)),
                               1.0 + expected, rtol=1e-6)
    assert "auxiliary_loss" not in SequenceClassifier(CharacterEncoder(), num_classes=2).output
