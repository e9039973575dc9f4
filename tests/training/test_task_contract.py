"""The written task contract (`training/task.py`) and the encoder interface
(`modeling/encoder_interface.py`): every task implements every hook with the
one signature; every task model is rebuilt from its `get_config` alone and
computes the same outputs; initialisation has one rule for every task."""

import inspect
import os
import re

import keras
import numpy as np
import pytest

from checkpoints.loader import CheckpointMismatchError
from checkpoints.ours import save_weights
from families.bert.encoder import BertEncoder
from families.bert.pretraining.task import PretrainingTask
from modeling.encoder_interface import build_encoder, check_encoder
from tasks.classification.model import SequenceClassifier
from tasks.classification.task import ClassificationTask
from tasks.multiple_choice.model import MultipleChoiceClassifier
from tasks.multiple_choice.task import MultipleChoiceConfig, MultipleChoiceTask
from tasks.question_answering.model import SpanLabeler
from tasks.question_answering.task import QuestionAnsweringTask
from tasks.tagging.feature_based_tagger import FeatureBasedTagger
from tasks.tagging.model import TokenClassifier
from tasks.tagging.task import TaggingTask
from tests.conftest import ROOT
from tests.tiny_config import TINY_CONFIG
from training.flag_groups import family_vocabulary_flags
from training.task import FineTuningTask, Task

# Four layers for the feature-based tagger's combinations of the last four.
CONFIG = TINY_CONFIG.replace(num_hidden_layers=4)
FINE_TUNING_TASKS = (ClassificationTask, QuestionAnsweringTask, TaggingTask, MultipleChoiceTask)
TASKS = FINE_TUNING_TASKS + (PretrainingTask,)


def _hooks(base):
    return {name: member for name, member in vars(base).items()
            if inspect.isfunction(member) and not name.startswith("_")}


@pytest.mark.parametrize("task_class", TASKS, ids=lambda c: c.__name__)
def test_every_task_implements_every_hook_with_its_one_signature(task_class):
    base = FineTuningTask if task_class in FINE_TUNING_TASKS else Task
    assert issubclass(task_class, base)
    assert not inspect.isabstract(task_class), task_class.__abstractmethods__
    for contract in (Task, base):
        for name, hook in _hooks(contract).items():
            implemented = getattr(task_class, name)
            assert inspect.signature(implemented) == inspect.signature(hook), (
                f"{task_class.__name__}.{name}{inspect.signature(implemented)} differs from "
                f"the contract's {name}{inspect.signature(hook)}")
    if base is FineTuningTask:
        for name in ("eval_splits", "test_splits"):
            assert hasattr(task_class, name)


def _inputs(shape, seed):
    rng = np.random.default_rng(seed)
    ids = rng.integers(1, CONFIG.vocab_size, shape).astype("int32")
    mask = np.ones(shape, "int32")
    mask[..., -2:] = 0
    return {"input_word_ids": ids, "input_mask": mask,
            "input_type_ids": (np.arange(shape[-1]) >= shape[-1] // 2).astype("int32")
            * np.ones(shape, "int32")}


TASK_MODELS = {
    "classification": (lambda e: SequenceClassifier(e, 3), (2, 8)),
    "regression": (lambda e: SequenceClassifier(e, 1), (2, 8)),
    "question_answering": (lambda e: SpanLabeler(e), (2, 8)),
    "tagging": (lambda e: TokenClassifier(e, 5), (2, 8)),
    "tagging_feature_based": (lambda e: FeatureBasedTagger(e, 5, "sum_last_four", 4, 2), (2, 8)),
    "multiple_choice": (lambda e: MultipleChoiceClassifier(e), (2, 4, 8)),
}


@pytest.mark.parametrize("name", sorted(TASK_MODELS))
def test_task_model_rebuilt_from_its_config_gives_identical_outputs(name):
    keras.utils.clear_session()
    build, shape = TASK_MODELS[name]
    model = build(BertEncoder(CONFIG))
    inputs = _inputs(shape, seed=len(name))
    expected = model(inputs, training=False)
    rebuilt = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(model))
    assert type(rebuilt) is type(model) and type(rebuilt.encoder) is BertEncoder
    assert [v.path for v in rebuilt.weights] == [v.path for v in model.weights]
    rebuilt.set_weights(model.get_weights())
    got = rebuilt(inputs, training=False)
    assert sorted(got) == sorted(expected)
    for key in expected:  # Same graph, same weights, same inputs: the same float32 arithmetic.
        np.testing.assert_array_equal(np.asarray(got[key]), np.asarray(expected[key]))


def test_build_encoder_picks_the_family_by_the_config_type():
    assert type(build_encoder(CONFIG)) is BertEncoder
    with pytest.raises(TypeError, match="no model family has a dict; registered config types: BertConfig"):
        build_encoder(CONFIG.to_dict())


def test_check_encoder_names_what_is_missing():
    check_encoder(BertEncoder(CONFIG))
    inputs = {name: keras.Input((None,), dtype="int32", name=name)
              for name in ("input_word_ids", "input_type_ids")}
    not_an_encoder = keras.Model(inputs, {"sequence_output": keras.layers.Embedding(
        CONFIG.vocab_size, 4)(inputs["input_word_ids"])})
    with pytest.raises(TypeError, match=r"config\.initializer_range.*input_mask.*outputs"):
        check_encoder(not_an_encoder)
    with pytest.raises(TypeError, match="is not an encoder"):
        SequenceClassifier(not_an_encoder, 2)


def test_initialize_requires_every_encoder_variable_for_every_task(tmp_path,
                                                                   uncased_vocab_file):
    """One rule for all tasks: a checkpoint without the encoder (here: the
    weights of a smaller encoder) is refused, not half loaded."""
    keras.utils.clear_session()
    smaller = BertEncoder(CONFIG.replace(num_hidden_layers=2, vocab_size=30522))
    save_weights(smaller, str(tmp_path / "smaller"))
    task = MultipleChoiceTask(MultipleChoiceConfig(
        data_dir=str(tmp_path), vocab_file=uncased_vocab_file,
        encoder_config=CONFIG.replace(vocab_size=30522), max_seq_length=16,
        init_checkpoint=str(tmp_path / "smaller")))
    with pytest.raises(CheckpointMismatchError, match="has no value for .* encoder variables"):
        task.initialize(task.build_model())


SHARED_FLAGS = ("bert_config_file", "init_checkpoint", "preset", "vocab_file", "do_lower_case", "max_seq_length",
                "do_train", "do_eval", "eval_train", "do_predict", "train_batch_size", "eval_batch_size", "predict_batch_size", "learning_rate", "num_train_epochs",
                "warmup_proportion", "export_dir", "export_precision", "data_dir", "skip_bad_rows", "fine_tune_encoder",
                "lstm_units", "lstm_layers")
COMMAND_LINES = ("run_classifier.py", "run_squad.py", "run_ner.py", "run_swag.py",
                 "run_pretraining.py", "extract_features.py", "convert_checkpoint.py",
                 os.path.join("export", "export_hub.py"), os.path.join("export", "export_model.py"))


def test_shared_flags_are_defined_once_in_the_flag_groups():
    defined = re.compile(r"flags\.DEFINE_\w+\(\s*\"(\w+)\"")
    for path in COMMAND_LINES:
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            again = sorted(set(defined.findall(f.read())) & set(SHARED_FLAGS))
        assert not again, f"{path} defines {again} again; use training/flag_groups.py"
    with open(os.path.join(ROOT, "training", "flag_groups.py"), encoding="utf-8") as f:
        names = defined.findall(f.read())
    assert sorted(names) == sorted(SHARED_FLAGS)
    # A family's own vocabulary flag comes from its config, defined there for every text runner.
    assert {name: f.name for name, f in family_vocabulary_flags().items()} == {
        "spiece_model_file": "xlnet"}
