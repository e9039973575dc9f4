"""Evaluation counts every example once, whatever the batch size: fewer records
than one batch, or a last partial batch, give the metrics computed directly
over all of them; evaluating nothing is an error, not a row of zeros."""

import os
import sys

import keras
import numpy as np
import pytest

from checkpoints.loader import load_into
from families.bert.pretraining.task import PretrainingTask
from tasks.classification.glue_readers import GlueReader
from tasks.classification.task import ClassificationConfig, ClassificationTask
from tests import warm_python
from tests.conftest import FIXTURES, ROOT
from tests.pretraining_records import TINY, write_records
from training.fine_tuning import FineTuningSettings, fine_tune
from training.run_options import RunOptions
from training.trainer import Trainer

# The same float32 forward pass run on batches of another size: kernels may
# block their sums differently, a few ulps apart (~1e-6 relative), and means
# over <= 13 values add no more than that again.
RTOL = 1e-5


def log_softmax(logits):
    logits = np.asarray(logits, np.float64)
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def whole_split(task, split, count):
    """The `count` examples of `split` in one batch."""
    (batch,) = list(task.build_dataset(split, count, training=False))
    return batch


@pytest.mark.parametrize("count", [5, 13])
def test_pretraining_evaluates_every_record(tmp_path, count):
    """5 records in batches of 8 (none full) and 13 (one full, one partial)."""
    records = write_records(tmp_path / "dev.tfrecord", count=count)
    task = PretrainingTask(TINY, records, max_seq_length=16, max_predictions_per_seq=4)
    run = Trainer(task, RunOptions(output_dir=str(tmp_path / "out")))
    results = run.evaluate(batch_size=8)

    features, labels = whole_split(task, "dev", count)
    assert features["input_word_ids"].shape[0] == count
    outputs = run.model(features, training=False)
    mlm, nsp = log_softmax(outputs["mlm_logits"]), log_softmax(outputs["nsp_logits"])
    ids, weights = labels["masked_lm_ids"].numpy(), labels["masked_lm_weights"].numpy() > 0
    nsp_labels = labels["next_sentence_labels"].numpy()
    mlm_losses = -np.take_along_axis(mlm, ids[..., None], axis=-1)[..., 0][weights]
    nsp_losses = -nsp[np.arange(count), nsp_labels]
    expected = {
        "loss": np.mean(task.loss(labels, outputs)),
        "masked_lm_accuracy": np.mean(mlm.argmax(-1)[weights] == ids[weights]),
        "masked_lm_loss": mlm_losses.mean(),
        "next_sentence_accuracy": np.mean(nsp.argmax(-1) == nsp_labels),
        "next_sentence_loss": nsp_losses.mean(),
    }
    for name, value in expected.items():
        assert results[name] == pytest.approx(value, rel=RTOL), name


def test_evaluating_no_records_is_an_error(tmp_path):
    records = write_records(tmp_path / "dev.tfrecord", count=3)
    task = PretrainingTask(TINY, records, max_seq_length=16, max_predictions_per_seq=4)
    run = Trainer(task, RunOptions(output_dir=str(tmp_path / "out")))
    with pytest.raises(ValueError, match=f"no examples to evaluate in at most 0 batches in {records}"):
        run.evaluate(batch_size=8, max_steps=0)


def test_run_pretraining_writes_no_results_over_zero_examples(tmp_path):
    config = tmp_path / "bert_config.json"
    TINY.to_json_file(str(config))
    records = write_records(tmp_path / "dev.tfrecord", count=3)
    done = warm_python.run(
        [sys.executable, os.path.join(ROOT, "run_pretraining.py"), f"--input_file={records}",
         f"--output_dir={tmp_path / 'out'}", f"--bert_config_file={config}", "--do_eval",
         "--max_seq_length=16", "--max_predictions_per_seq=4", "--max_eval_steps=0"],
        cwd=ROOT, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""},
        capture_output=True, text=True, timeout=600)
    assert done.returncode != 0
    assert "no examples to evaluate" in done.stderr
    assert not (tmp_path / "out" / "eval_results.txt").exists()


def test_classifier_evaluates_every_dev_example(tmp_path, uncased_vocab_file):
    """MNLI dev files of 9 and 6 examples, evaluation batches of 16."""
    task = ClassificationTask(ClassificationConfig(
        reader=GlueReader("MNLI", os.path.join(FIXTURES, "glue_mnli")),
        vocab_file=uncased_vocab_file, encoder_config=TINY.replace(vocab_size=30522),
        cache_dir=str(tmp_path), max_seq_length=32))
    output_dir = str(tmp_path / "out")
    results = fine_tune(task, RunOptions(output_dir=output_dir), FineTuningSettings(
        do_train=True, do_eval=True, train_batch_size=10, num_train_epochs=1.0,
        eval_batch_size=16, learning_rate=1e-3)).results

    keras.utils.clear_session()  # Variable names as in the trainer's model.
    model = task.build_model()
    load_into(model, output_dir, strict=True)
    for split, prefix in (("dev_matched", "eval_"), ("dev_mismatched", "eval_mismatched_")):
        features, labels = whole_split(task, split, task.num_examples(split))
        assert features["input_word_ids"].shape[0] == task.num_examples(split)
        outputs = model(features, training=False)
        accuracy = np.mean(np.argmax(outputs["logits"], -1) == labels["label"].numpy())
        assert results[prefix + "accuracy"] == pytest.approx(accuracy, rel=RTOL)
        loss = np.mean(task.loss(labels, outputs))
        assert results[prefix + "loss"] == pytest.approx(loss, rel=RTOL)
