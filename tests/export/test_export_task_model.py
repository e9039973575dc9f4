"""export_meta.json's `task_model`: the export rebuilds a task model from the
Keras config recorded there (any class, any dtype policy it trained under),
and files written before the field existed still export as before."""

import dataclasses
import json

import keras
import numpy as np
import pytest

from checkpoints.loader import load_into
from checkpoints.ours import save_weights
from contracts import task_registry
from data.text.segments import encode_texts
from data.text.tokenization import FullTokenizer
from export.export_meta import ExportMeta, ExportMetaError, read_export_meta, write_export_meta
from export.export_model import ExportError, build_task_model, export_model
from families.bert.encoder import dummy_inputs
from modeling.encoder_interface import build_encoder
from tasks.classification.model import SequenceClassifier
from tasks.multiple_choice.model import MultipleChoiceClassifier
from tasks.question_answering.model import SpanLabeler
from tasks.tagging.model import TokenClassifier
from tests.export_harness import TINY_CONFIG, run_fresh, sentences

SEQ_LENGTH = 32
LABELS = ("O", "B-PER", "I-PER")
MODELS = {
    "classification": lambda encoder: SequenceClassifier(encoder, 3, dropout_rate=0.3),
    "question_answering": SpanLabeler,
    "tagging": lambda encoder: TokenClassifier(encoder, len(LABELS), dropout_rate=0.2),
    "multiple_choice": MultipleChoiceClassifier,
}


def _meta(task, vocab_file, model=None):
    return ExportMeta(
        task, TINY_CONFIG, vocab_file, max_seq_length=SEQ_LENGTH,
        label_list=LABELS if task in ("classification", "tagging") else None,
        doc_stride=16 if task in ("question_answering", "tagging") else None,
        squad=dict(max_query_length=8, n_best_size=5, max_answer_length=10,
                   version_2_with_negative=False, null_score_diff_threshold=0.0)
        if task == "question_answering" else None,
        task_model=None if model is None else keras.saving.serialize_keras_object(model))


def _inputs(task):
    inputs = {k: np.asarray(v) for k, v in dummy_inputs(2, SEQ_LENGTH).items()}
    rng = np.random.default_rng(0)
    inputs["input_word_ids"] = rng.integers(0, TINY_CONFIG.vocab_size, (2, SEQ_LENGTH),
                                            dtype=np.int32)
    if task == "multiple_choice":
        inputs = {k: np.stack([v] * 3, axis=1) for k, v in inputs.items()}
    return inputs


@pytest.mark.parametrize("task", sorted(MODELS))
def test_rebuilt_from_recorded_config_gives_identical_outputs(tmp_path, uncased_vocab_file, task):
    keras.utils.set_random_seed(7)
    trained = MODELS[task](build_encoder(TINY_CONFIG))
    write_export_meta(str(tmp_path), _meta(task, uncased_vocab_file, trained))
    save_weights(trained, str(tmp_path))
    meta = read_export_meta(str(tmp_path))
    rebuilt = build_task_model(meta)
    assert type(rebuilt) is type(trained)
    assert rebuilt.get_config() == trained.get_config()  # the recorded dropout, not a default
    assert not load_into(rebuilt, str(tmp_path)).missing
    inputs = _inputs(task)
    expected, actual = trained(inputs, training=False), rebuilt(inputs, training=False)
    for key in expected:
        np.testing.assert_array_equal(np.asarray(actual[key]), np.asarray(expected[key]))


def test_mixed_precision_model_is_rebuilt_in_float32(uncased_vocab_file):
    policy = keras.config.dtype_policy()
    keras.config.set_dtype_policy("mixed_bfloat16")
    try:
        trained = SequenceClassifier(build_encoder(TINY_CONFIG), 3)
        rebuilt = build_task_model(_meta("classification", uncased_vocab_file, trained))
        assert keras.config.dtype_policy().name == "mixed_bfloat16"
    finally:
        keras.config.set_dtype_policy(policy)
    assert trained.encoder.dtype_policy.name == "mixed_bfloat16"
    assert rebuilt.encoder.dtype_policy.name == "float32"
    assert rebuilt.get_layer("classifier").dtype_policy.name == "float32"


def test_every_task_has_a_serving_module_and_unknown_ones_are_named(uncased_vocab_file):
    assert {t.name for t in task_registry.tasks() if t.serve} == set(MODELS)
    # The names earlier versions wrote into export_meta.json read as today's.
    for old, task in (("regression", "classification"), ("squad", "question_answering"), ("ner", "tagging")):
        assert dataclasses.replace(_meta(task, uncased_vocab_file), task=old).task == task
    with pytest.raises(ExportMetaError, match=r"unknown task 'summarization'; registered: classification, "
                                              r"question_answering, tagging, multiple_choice"):
        _meta("summarization", uncased_vocab_file)
    with pytest.raises(ExportMetaError, match="task 'feature_extraction' is not exported"):
        _meta("feature_extraction", uncased_vocab_file)


_LOADER = """
import numpy as np
import tensorflow as tf
import tensorflow_text  # noqa: F401

arrays = {}
for name in ("old", "new"):
    outputs = tf.saved_model.load(ARGS[name]).signatures["serve_ids"](
        **{k: tf.constant(v) for k, v in ARGS["ids"].items()})
    for key, value in outputs.items():
        value = value.numpy()
        arrays[f"{name}/{key}"] = value.astype(bytes) if value.dtype == object else value
np.savez(ARGS["arrays"], **arrays)
"""


def test_old_format_export_meta_still_exports_identically(tmp_path, uncased_vocab_file):
    keras.utils.set_random_seed(11)
    trained = SequenceClassifier(build_encoder(TINY_CONFIG), len(LABELS))
    paths = {}
    for name in ("old", "new"):
        run_dir = tmp_path / name
        write_export_meta(str(run_dir), _meta("classification", uncased_vocab_file, trained))
        save_weights(trained, str(run_dir))
        if name == "old":  # As written before `task_model` existed.
            path = run_dir / "export_meta.json"
            values = json.loads(path.read_text())
            del values["task_model"]
            path.write_text(json.dumps(values))
        meta = read_export_meta(str(run_dir))
        assert (meta.task_model is None) == (name == "old")
        paths[name] = export_model(meta, str(tmp_path / "export" / name / "1"), str(run_dir))
    ids = encode_texts(FullTokenizer(uncased_vocab_file, do_lower_case=True), sentences(), None,
                       SEQ_LENGTH)
    arrays_file = str(tmp_path / "outputs.npz")
    run_fresh(_LOADER, tmp_path, ids={k: v.tolist() for k, v in ids.items()},
              arrays=arrays_file, **paths)
    arrays = np.load(arrays_file)
    keys = [k[len("new/"):] for k in arrays.files if k.startswith("new/")]
    assert sorted(keys) == ["label_ids", "label_names", "probabilities"]
    expected = np.asarray(keras.ops.softmax(trained(ids, training=False)["logits"]))
    for key in keys:
        np.testing.assert_array_equal(arrays["old/" + key], arrays["new/" + key])
    np.testing.assert_allclose(arrays["new/probabilities"], expected, atol=1e-5)


def test_unreadable_task_model_names_the_file_and_field(uncased_vocab_file):
    meta = dataclasses.replace(_meta("regression", uncased_vocab_file),
                               task_model={"class_name": "NoSuchModel", "config": {}})
    with pytest.raises(ExportError, match="export_meta.json: task_model: .*NoSuchModel"):
        build_task_model(meta)
