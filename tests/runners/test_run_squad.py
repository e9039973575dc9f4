"""run_squad.py end to end on a tiny model and fixture, and the task's datasets and loss."""

import json
import os
import sys

import numpy as np
import pytest

from families.xlnet.config import XLNetConfig
from tasks.question_answering.squad_reader import read_squad_file
from tasks.question_answering.task import QuestionAnsweringConfig, QuestionAnsweringTask
from tests import warm_python
from tests.conftest import FIXTURES, ROOT, read_json, read_squad_predictions
from tests.families.xlnet.spiece_model import learn_spiece_model
from tests.families.xlnet.squad import write_squad_v2
from tests.tiny_config import TINY_CONFIG
from training.run_options import RunOptions
from training.trainer import Trainer

V2 = os.path.join(FIXTURES, "squad_v2_tiny.json")


def test_train_and_predict_write_well_formed_outputs(tmp_path, uncased_vocab_file):
    config_file = tmp_path / "bert_config.json"
    TINY_CONFIG.to_json_file(str(config_file))
    output_dir = tmp_path / "out"
    warm_python.run(
        [sys.executable, os.path.join(ROOT, "run_squad.py"), f"--vocab_file={uncased_vocab_file}",
         f"--bert_config_file={config_file}", "--do_train", f"--train_file={V2}", "--do_predict",
         f"--predict_file={V2}", "--version_2_with_negative", "--max_seq_length=48",
         "--doc_stride=16", "--max_query_length=12", "--train_batch_size=4",
         "--num_train_epochs=2", "--learning_rate=1e-3", "--n_best_size=5",
         f"--output_dir={output_dir}"],
        check=True, cwd=ROOT, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"},
        capture_output=True)

    squad_file = read_squad_file(V2, is_training=False, version_2_with_negative=True)
    contexts = {e.qas_id: e.context for e in squad_file.examples}

    predictions, nbest, null_odds = read_squad_predictions(output_dir, contexts)
    for qid, text in predictions.items():
        assert isinstance(text, str) and text in contexts[qid]
        entries = nbest[qid]
        assert 1 <= len(entries) <= 6  # n_best_size, plus the null answer when it ranked lower
        assert sum(e["probability"] for e in entries) == pytest.approx(1.0)
        assert all(e["text"] in contexts[qid] for e in entries)
        assert [e["start_logit"] + e["end_logit"] for e in entries if e["text"]] == sorted(
            (e["start_logit"] + e["end_logit"] for e in entries if e["text"]), reverse=True)
        assert np.isfinite(null_odds[qid])
        assert (text == "") == (null_odds[qid] > 0.0) or not any(e["text"] for e in entries)
    results = read_json(output_dir / "eval_results.json")
    assert results["total"] == 7 and results["HasAns_total"] == 4 and results["NoAns_total"] == 3
    for key in ("exact", "f1", "best_exact", "best_f1"):
        assert 0.0 <= results[key] <= 100.0
    meta = json.loads((output_dir / "export_meta.json").read_text())
    assert meta["task"] == "question_answering" and meta["task_model"]["class_name"] == "SpanLabeler"
    assert os.path.isdir(output_dir / "train")  # TensorBoard summaries
    assert any(name.startswith("ckpt-") for name in os.listdir(output_dir))
    assert not [name for name in os.listdir(output_dir) if name.endswith(".tmp")]


@pytest.fixture
def task(uncased_vocab_file):
    return QuestionAnsweringTask(QuestionAnsweringConfig(
        uncased_vocab_file, TINY_CONFIG, train_file=V2, predict_file=V2,
        max_seq_length=48, doc_stride=16, max_query_length=12, version_2_with_negative=True))


def test_datasets_and_loss(task):
    features, labels = next(iter(task.build_dataset("train", 4, training=True)))
    assert {k: tuple(v.shape) for k, v in features.items()} == {
        "input_word_ids": (4, 48), "input_mask": (4, 48), "input_type_ids": (4, 48)}
    assert set(labels) == {"start_positions", "end_positions"}
    # Zero logits: each cross-entropy is log(seq_length).
    zeros = {"start_logits": np.zeros((4, 48), np.float32),
             "end_logits": np.zeros((4, 48), np.float32)}
    np.testing.assert_allclose(np.asarray(task.loss(labels, zeros)), np.log(48.0), rtol=1e-6)

    model = task.build_model()
    raw = {"unique_ids": [], "positions_cut": [], "start_logits": [], "end_logits": []}
    for features, labels in task.build_dataset("predict", 5, training=False):
        assert set(labels) == {"unique_ids", "positions_cut"}
        outputs = model(features, training=False)
        assert not np.asarray(task.loss(labels, outputs)).any()
        for name, value in task.gathered(labels, outputs).items():
            raw[name].append(np.asarray(value))
    raw = {k: np.concatenate(v) for k, v in raw.items()}
    assert raw["start_logits"].shape == (task.num_examples("predict"), 48)
    assert len(raw["unique_ids"]) == task.num_examples("predict")
    scores = task.evaluate(raw)
    assert scores["total"] == 7 and "best_f1_thresh" in scores


def cut_and_full_predictions(task, tmp_path):
    """(batch widths, predictions in batches of 4 cut to their longest window,
    the same model's in full-length batches), both in file order. The cut
    batches run from short windows to long, the shortest below 48."""
    trainer = Trainer(task, RunOptions(output_dir=str(tmp_path / "run")))
    widths = [f["input_mask"].shape[1] for f, _ in task.build_dataset("predict", 4, training=False)]
    trimmed = trainer.predict(4, split="predict")
    task.config.trim_padding = False
    full = trainer.predict(4, split="predict")
    assert widths == sorted(widths) and widths[0] < 48
    order = np.argsort(trimmed["unique_ids"])
    trimmed = {name: value[order] for name, value in trimmed.items()}
    assert list(trimmed["unique_ids"]) == list(full["unique_ids"])
    return widths, trimmed, full


def test_prediction_from_short_to_long_windows_changes_no_answer(task, tmp_path):
    """Prediction reads the windows from shortest to longest, each batch cut to
    its longest: every real position's logits and every answer are those of
    full-length batches, in fewer tokens."""
    widths, trimmed, full = cut_and_full_predictions(task, tmp_path)
    assert sum(widths) < 48 * len(widths)
    real = np.stack([f.inputs["input_mask"] for f in task.split("predict").features]) > 0
    for name in ("start_logits", "end_logits"):
        assert trimmed[name].shape == full[name].shape == (len(real), 48)
        # Masked positions add exact zeros; float32 sums of other lengths.
        np.testing.assert_allclose(trimmed[name][real], full[name][real], atol=1e-5)
    assert task.predictions(trimmed).predictions == task.predictions(full).predictions


def test_xlnet_beam_from_short_to_long_windows_changes_no_answer(tmp_path):
    """XLNet's left-padded windows cut on the left: `cls_index` moves with the
    cut and the beam's indices move back, so the beam and every answer are those
    of full-length batches."""
    config = XLNetConfig.from_preset("xlnet_tiny").replace(n_token=128)
    squad_file = write_squad_v2(tmp_path / "houses-v2.json")
    task = QuestionAnsweringTask(QuestionAnsweringConfig(
        learn_spiece_model(tmp_path), config, predict_file=squad_file, do_lower_case=False,
        max_seq_length=48, doc_stride=16, max_query_length=16, version_2_with_negative=True,
        start_n_top=3, end_n_top=2))
    _, trimmed, full = cut_and_full_predictions(task, tmp_path)
    assert (trimmed["positions_cut"] > 0).any()
    for name in ("start_top_index", "end_top_index"):
        np.testing.assert_array_equal(trimmed[name], full[name])
    for name in ("start_top_log_probs", "end_top_log_probs", "cls_logits"):
        # Masked positions add exact zeros; float32 sums of other lengths.
        np.testing.assert_allclose(trimmed[name], full[name], atol=1e-5)
    assert task.predictions(trimmed).predictions == task.predictions(full).predictions


def test_sequence_longer_than_positions_is_an_error(uncased_vocab_file):
    with pytest.raises(ValueError, match="max_position_embeddings"):
        QuestionAnsweringConfig(uncased_vocab_file, TINY_CONFIG, max_seq_length=128,
                                max_query_length=12)
