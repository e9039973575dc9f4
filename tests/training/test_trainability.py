"""A fine-tuning run's trainability record: `train_loss` and `prior_loss`
beside the dev metrics (and, asked, the train split's own scores), and one
warning when the run did not leave the label prior. A run at learning rate 0
stays at the prior and says so; a run that learns ends well below it, without
the warning. GPT's auxiliary language-model loss does not count in
`train_loss`."""

import logging

import keras
import numpy as np
import pytest

from tasks.classification.custom_reader import CustomReader
from tasks.classification.task import ClassificationConfig, ClassificationTask
from training.fine_tuning import LEFT_PRIOR, FineTuningSettings, fine_tune
from training.optimization import OptimizerConfig
from training.run_options import RunOptions
from training.trainer import Trainer
from tests.families.gpt import kit
from tests.tiny_config import TINY_CONFIG

# Five of one label, three of the other, each told apart by its words.
ROWS = [("red house", "yes"), ("a red door", "yes"), ("red roof", "yes"), ("the red room", "yes"),
        ("red red", "yes"), ("old wall", "no"), ("an old floor", "no"), ("old old", "no")]
WARNING = "did not leave the label prior"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("houses")
    text = "sentence\tlabel\n" + "".join(f"{t}\t{label}\n" for t, label in ROWS)
    for split in ("train", "dev"):
        (directory / f"{split}.tsv").write_text(text, encoding="utf-8")
    return directory


def run(data_dir, output_dir, learning_rate, caplog, config=TINY_CONFIG, vocab_file=None, eval_train=False):
    keras.utils.clear_session()
    task = ClassificationTask(ClassificationConfig(
        CustomReader(str(data_dir), "sentence"), vocab_file, config, cache_dir=str(output_dir),
        max_seq_length=8))
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="absl"):
        outcome = fine_tune(task, RunOptions(output_dir=str(output_dir), log_steps=10), FineTuningSettings(
            do_train=True, do_eval=True, train_batch_size=4, learning_rate=learning_rate,
            num_train_epochs=15, eval_train=eval_train))
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and WARNING in r.getMessage()]
    with open(output_dir / "eval_results.txt", encoding="utf-8") as f:
        written = dict(line.rstrip("\n").split(" = ") for line in f)
    assert {k: float(written[k]) for k in ("train_loss", "prior_loss")} == {
        k: outcome.results[k] for k in ("train_loss", "prior_loss")}
    return outcome.results, warnings


def test_a_run_at_learning_rate_0_stays_at_the_prior_and_warns(data_dir, tmp_path, uncased_vocab_file, caplog):
    results, warnings = run(data_dir, tmp_path, 0.0, caplog, vocab_file=uncased_vocab_file)
    prior = -(5 / 8 * np.log(5 / 8) + 3 / 8 * np.log(3 / 8))
    assert results["prior_loss"] == pytest.approx(prior, rel=1e-12)
    # The untrained head's logits are within a few hundredths of each other (weights
    # drawn at initializer_range 0.02): its loss is ln 2, a little above the prior.
    assert prior <= results["train_loss"] <= np.log(2) + 0.05
    assert len(warnings) == 1 and f"{LEFT_PRIOR:g} x" in warnings[0]


def test_a_run_that_learns_ends_below_the_prior_without_warning(data_dir, tmp_path, uncased_vocab_file,
                                                                caplog):
    results, warnings = run(data_dir, tmp_path, 3e-3, caplog, vocab_file=uncased_vocab_file, eval_train=True)
    assert results["train_loss"] < 0.5 * results["prior_loss"]
    assert not warnings
    # --eval_train scores the train split as evaluation scores dev: here the two files are one text
    assert {k: results["train_split_" + k] for k in ("loss", "accuracy")} == {
        k: results["eval_" + k] for k in ("loss", "accuracy")}
    assert results["train_split_accuracy"] > 5 / 8  # above the majority label's share


def test_gpts_language_model_loss_is_not_in_the_train_loss(data_dir, tmp_path):
    """At learning rate 0 without dropout the model stays as built: the logged
    loss is the task's plus the weighted language-model loss, `task_loss` and
    `train_loss` the task's alone, as evaluation computes it."""
    keras.utils.clear_session()
    config = kit.tiny_config().replace(embd_pdrop=0.0, attn_pdrop=0.0, resid_pdrop=0.0, clf_pdrop=0.0)
    task = ClassificationTask(ClassificationConfig(
        CustomReader(str(data_dir), "sentence"), kit.ENCODER_FILE, config, cache_dir=str(tmp_path),
        max_seq_length=8))
    trainer = Trainer(task, RunOptions(output_dir=str(tmp_path), log_steps=1))
    (record,) = trainer.train(len(ROWS), 1, OptimizerConfig(learning_rate=0.0))
    features, labels = next(iter(task.build_dataset("train", len(ROWS), training=False)))
    outputs = trainer.model(features, training=False)
    task_loss = float(np.mean(task.loss(labels, outputs)))
    auxiliary = float(np.mean(outputs["auxiliary_loss"]))
    assert auxiliary > 0.1
    assert record["task_loss"] == pytest.approx(task_loss, rel=1e-5)
    assert record["loss"] == pytest.approx(task_loss + auxiliary, rel=1e-5)
    assert trainer.train_loss() == pytest.approx(task_loss, rel=1e-5)
