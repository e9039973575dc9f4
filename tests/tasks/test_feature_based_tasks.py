"""A feature-based family's task (ELMo, through its record's `feature_based`)
as the shared trainer runs it: the encoder frozen unless `fine_tune_encoder`,
the mix and the task BiLSTM trained, and the mix's L2 in the training loss;
every task's BiLSTM sized by its config."""

import keras
import numpy as np
import pytest

from families.elmo.config import ELMoConfig
from families.elmo.family import L2_COEF
from tasks.classification.custom_reader import CustomReader
from tasks.classification.model import FeatureBasedClassifier
from tasks.classification.task import ClassificationConfig, ClassificationTask
from tasks.multiple_choice.task import MultipleChoiceConfig, MultipleChoiceTask
from tasks.question_answering.task import QuestionAnsweringConfig, QuestionAnsweringTask
from training.optimization import OptimizerConfig
from training.run_options import RunOptions
from training.trainer import Trainer

ROWS = [("the red house", "yes"), ("an old door", "no"), ("red doors !", "yes"), ("green rooms", "no"),
        ("a tall red house", "yes"), ("no doors at all", "no"), ("red", "yes"), ("old", "no")]
MIX_W = [1.0, -2.0, 0.5]


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("houses")
    (directory / "train.tsv").write_text(
        "sentence\tlabel\n" + "".join(f"{t}\t{label}\n" for t, label in ROWS), encoding="utf-8")
    return directory


def trainer(data_dir, output_dir, fine_tune_encoder):
    task = ClassificationTask(ClassificationConfig(
        CustomReader(str(data_dir), "sentence"), None, ELMoConfig.from_preset("elmo_tiny"),
        cache_dir=str(output_dir), max_seq_length=8, dropout_rate=0.0,
        fine_tune_encoder=fine_tune_encoder))
    return Trainer(task, RunOptions(output_dir=str(output_dir), log_steps=1))


def encoder_values(model):
    return [w.numpy() for w in model.encoder.weights]


def test_the_encoder_is_frozen_and_the_loss_holds_the_mix_l2(data_dir, tmp_path):
    run = trainer(data_dir, tmp_path / "frozen", fine_tune_encoder=False)
    model = run.model
    assert isinstance(model, FeatureBasedClassifier)
    assert not {w.path for w in model.trainable_weights} & {w.path for w in model.encoder.weights}
    mix = model.get_layer("mix")
    mix.w.assign(MIX_W)
    # The whole train split is one batch: its order does not change the mean loss.
    features, labels = next(iter(run.task.build_dataset("train", len(ROWS), training=False)))
    task_loss = float(np.mean(run.task.loss(labels, model(features, training=True))))
    before, w_before = encoder_values(model), mix.w.numpy()
    (record,) = run.train(len(ROWS), 1, OptimizerConfig(learning_rate=1e-2))
    assert record["loss"] == pytest.approx(task_loss + L2_COEF * sum(w * w for w in MIX_W), abs=1e-6)
    assert all(np.array_equal(b, a) for b, a in zip(before, encoder_values(model)))
    assert np.abs(mix.w.numpy() - w_before).max() > 1e-4


def test_fine_tune_encoder_trains_the_encoder_under_the_same_head(data_dir, tmp_path):
    """What the trainer updates is the model's `trainable_variables`: with
    `fine_tune_encoder` every encoder weight, beside the same mix and head."""
    task = ClassificationTask(ClassificationConfig(
        CustomReader(str(data_dir), "sentence"), None, ELMoConfig.from_preset("elmo_tiny"),
        cache_dir=str(tmp_path), max_seq_length=8, fine_tune_encoder=True))
    model = task.build_model()
    assert isinstance(model, FeatureBasedClassifier)
    trainable = {w.path for w in model.trainable_weights}
    assert {w.path for w in model.encoder.weights} <= trainable
    assert {w.path for w in model.get_layer("mix").weights} <= trainable
    rebuilt = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(model))
    assert rebuilt.get_config()["fine_tune_encoder"] is True
    assert {w.path for w in rebuilt.trainable_weights} == trainable


def _bilstm_weights(inputs, units):
    """A Keras Bidirectional LSTM's weights: kernel, recurrent kernel and bias of four gates, twice."""
    return 2 * 4 * (units * (inputs + units) + units)


def _head_weights(task_name, features, units, layers):
    """The trained weights of a frozen encoder's head: the mix (one weight per
    layer and a scale), the BiLSTMs and the task's dense layers."""
    trunk = _bilstm_weights(features, units) + (layers - 1) * _bilstm_weights(2 * units, units)
    head = {"classification": 4 * units * 2 + 2,  # max and mean of the states -> 2 classes
            "multiple_choice": 4 * units + 1,  # -> one score per choice
            "question_answering": (_bilstm_weights(2 * units, units)  # the end's own BiLSTM
                                   + 2 * units + 1 + 4 * units + 1)}[task_name]
    return 3 + 1 + trunk + head  # elmo_tiny's mix: three layers and a scale


@pytest.mark.parametrize("task_name", ["classification", "multiple_choice", "question_answering"])
@pytest.mark.parametrize("lstm_units, lstm_layers", [(None, None), (5, 3)])
def test_the_task_bilstm_takes_its_size_from_the_config(data_dir, tmp_path, task_name, lstm_units,
                                                        lstm_layers):
    """Every feature-based head takes `lstm_units` and `lstm_layers` (the runners'
    --lstm_units, --lstm_layers), defaulting to the record's (200 units, 2 layers)."""
    keras.utils.clear_session()
    config = ELMoConfig.from_preset("elmo_tiny")
    head = {"lstm_units": lstm_units, "lstm_layers": lstm_layers, "encoder_config": config}
    if task_name == "classification":
        task = ClassificationTask(ClassificationConfig(CustomReader(str(data_dir), "sentence"), None,
                                                       cache_dir=str(tmp_path), **head))
    elif task_name == "multiple_choice":
        task = MultipleChoiceTask(MultipleChoiceConfig(str(data_dir), None, **head))
    else:
        task = QuestionAnsweringTask(QuestionAnsweringConfig(None, max_seq_length=32, doc_stride=8,
                                                             max_query_length=8, **head))
    model = task.build_model()
    features = config.lstm.projection_dim * 2  # each biLM layer's forward and backward states
    expected = _head_weights(task_name, features, lstm_units or 200, lstm_layers or 2)
    assert sum(int(np.prod(w.shape)) for w in model.trainable_weights) == expected
