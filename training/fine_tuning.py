"""One fine-tuning run of any `training.task.FineTuningTask`, as the original
`run_classifier.py` does it: train for `num_train_epochs` over the train
split with linear warmup and decay, evaluate every dev split into
`eval_results.txt` (or the task's `eval_results_file`) and TensorBoard
(`<output_dir>/eval`), and write the test predictions.

A run that trains also records whether it learned (`trainability`): beside
the dev metrics, `train_loss` (the task's own loss over the last tenth of the
steps) and `prior_loss` (the task's loss of the best constant predictor on
the train split), and a warning when the first has not fallen below
`LEFT_PRIOR` times the second. With `eval_train` it also scores the train
split itself (`train_split_<metric>`): a loss can leave the prior while the
model still predicts the majority label (an NER tagger that finds no entity),
so how well a run fit its training data is measured, not inferred.
"""

import dataclasses
import json
import os

import tensorflow as tf
from absl import logging

from training.label_prior import LEFT_PRIOR, left_prior
from training.optimization import OptimizerConfig
from training.trainer import Trainer, write_results
from utils.files import atomic_write_text

EVAL_RESULTS = "eval_results.txt"
TRAIN_SPLIT_PREFIX = "train_split_"  # the train split's own scores (`eval_train`), beside the dev split's eval_


@dataclasses.dataclass(frozen=True)
class FineTuningSettings:
    """What to do and with which hyper-parameters (the original flags' defaults)."""

    do_train: bool = False
    do_eval: bool = False
    do_predict: bool = False
    train_batch_size: int = 32
    eval_batch_size: int = 8
    predict_batch_size: int = 8
    learning_rate: float = 5e-5
    num_train_epochs: float = 3.0
    warmup_proportion: float = 0.1
    optimizer: str = "adamw"
    eval_train: bool = False


def num_train_steps(num_examples, batch_size, num_epochs):
    """The original's count: int(examples / batch * epochs), at least 1."""
    return max(1, int(num_examples / batch_size * num_epochs))


def eval_prefix(split, eval_splits):
    """`eval_` for the first dev split, `eval_mismatched_` for MNLI's `dev_mismatched`."""
    if split == eval_splits[0]:
        return "eval_"
    return "eval_" + split.removeprefix("dev_") + "_"


@dataclasses.dataclass
class RunResult:
    results: dict  # the evaluation results file as a dict; empty without do_eval
    files: list  # the evaluation results file and prediction files written
    is_chief: bool = True  # this worker writes the run's files


def train_epochs(trainer, task, settings):
    """`num_train_epochs` over the train split; warmup is `warmup_proportion` of the steps."""
    steps = num_train_steps(task.num_examples("train"), settings.train_batch_size,
                            settings.num_train_epochs)
    logging.info("%d training examples, %d steps of batch %d", task.num_examples("train"),
                 steps, settings.train_batch_size)
    trainer.train(settings.train_batch_size, steps, OptimizerConfig(
        name=settings.optimizer, learning_rate=settings.learning_rate,
        num_warmup_steps=int(steps * settings.warmup_proportion)))


def trainability(trainer, task):
    """{"train_loss", "prior_loss"} of a trained run (train_loss left out when
    the trainer saw none of its last steps: resumed past them from a checkpoint
    that does not record them); logs a warning when it stayed at the prior."""
    record = {"prior_loss": task.prior_loss()}
    train_loss = trainer.train_loss()
    if train_loss is not None:
        record["train_loss"] = train_loss
        if not left_prior(record):
            logging.warning(
                "The run did not leave the label prior: its training loss %.4f (the last tenth of "
                "its steps) is not below %g x %.4f, the loss of the best constant predictor on the "
                "train split", train_loss, LEFT_PRIOR, record["prior_loss"])
    logging.info("Trainability: %s", record)
    return record


def fine_tune(task, options, settings):
    """Trains, evaluates and predicts as `settings` say; returns a `RunResult`."""
    trainer = Trainer(task, options)
    output_dir, written, predicted = options.output_dir, [], {}

    def predictions(split):  # One prediction pass per split, shared by eval and predict.
        if split not in predicted:
            predicted[split] = trainer.predict(settings.predict_batch_size, split=split)
        return predicted[split]

    trained = {}
    if settings.do_train:
        train_epochs(trainer, task, settings)
        trained = trainability(trainer, task)
    results = {}
    if settings.do_eval:
        for split in task.eval_splits:
            if task.eval_from_predictions:
                results.update(task.evaluate(predictions(split)))
                logging.info("%s: %s", task.input_name(split), results)
                continue
            split_results = trainer.evaluate(settings.eval_batch_size, split=split)
            prefix = eval_prefix(split, task.eval_splits)
            results["global_step"] = split_results.pop("global_step")
            if prefix == "eval_" and task.eval_loss_twice:
                results["loss"] = split_results["loss"]
            results.update({prefix + k: v for k, v in split_results.items()})
            logging.info("%s: %s", split, split_results)
        if settings.eval_train and not task.eval_from_predictions:
            fit = trainer.evaluate(settings.eval_batch_size, split="train")
            results.update({TRAIN_SPLIT_PREFIX + k: v for k, v in fit.items() if k != "global_step"})
        results.update(trained)
        if trainer.is_chief:
            written.append(_write_eval_results(output_dir, task.eval_results_file, results))
    if settings.do_predict:
        for split in task.test_splits:
            split_predictions = predictions(split)
            if trainer.is_chief:
                paths = task.write_predictions(split, split_predictions, output_dir)
                logging.info("Wrote %s predictions to %s", split, ", ".join(paths))
                written.extend(paths)
    return RunResult(results, written, trainer.is_chief)


def _write_eval_results(output_dir, name, results):
    """`key = value` lines (`.txt`, with TensorBoard summaries) or JSON; returns the path."""
    path = os.path.join(output_dir, name)
    if name.endswith(".json"):
        atomic_write_text(path, json.dumps(results, indent=2) + "\n")
    else:
        write_results(path, results)
        _write_summaries(os.path.join(output_dir, "eval"), results)
    return path


def _write_summaries(directory, results):
    writer = tf.summary.create_file_writer(directory)
    with writer.as_default(step=int(results["global_step"])):
        for name, value in results.items():
            if name != "global_step":
                tf.summary.scalar(name, value)
    writer.close()
