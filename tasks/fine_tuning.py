"""One fine-tuning run of a task with dev and test splits, as the original
`run_classifier.py` does it: train for `num_train_epochs` over the train
split with linear warmup and decay, evaluate every dev split into
`eval_results.txt` and TensorBoard (`<output_dir>/eval`), and write the test
predictions.

The task provides `num_examples(split)`, `eval_splits`, `test_splits` and
`write_predictions(split, predictions, output_dir) -> path` besides the
`tasks.base.Task` contract.
"""

import dataclasses
import os

import tensorflow as tf
from absl import logging

from tasks.optimization import OptimizerConfig
from tasks.trainer import Trainer, write_results

EVAL_RESULTS = "eval_results.txt"


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
    results: dict  # `eval_results.txt` as a dict; empty without do_eval
    files: list  # eval_results.txt and prediction files written


def train_epochs(trainer, task, settings):
    """`num_train_epochs` over the train split; warmup is `warmup_proportion` of the steps."""
    steps = num_train_steps(task.num_examples("train"), settings.train_batch_size,
                            settings.num_train_epochs)
    logging.info("%d training examples, %d steps of batch %d", task.num_examples("train"),
                 steps, settings.train_batch_size)
    trainer.train(settings.train_batch_size, steps, OptimizerConfig(
        name=settings.optimizer, learning_rate=settings.learning_rate,
        num_warmup_steps=int(steps * settings.warmup_proportion)))


def fine_tune(task, options, settings):
    """Trains, evaluates and predicts as `settings` say; returns a `RunResult`."""
    trainer = Trainer(task, options)
    output_dir, written = options.output_dir, []
    if settings.do_train:
        train_epochs(trainer, task, settings)
    results = {}
    if settings.do_eval:
        for split in task.eval_splits:
            split_results = trainer.evaluate(settings.eval_batch_size, split=split)
            prefix = eval_prefix(split, task.eval_splits)
            results["global_step"] = split_results.pop("global_step")
            if prefix == "eval_":
                results["loss"] = split_results["loss"]  # the original's duplicate of eval_loss
            results.update({prefix + k: v for k, v in split_results.items()})
            logging.info("%s: %s", split, split_results)
        if trainer.is_chief:
            path = os.path.join(output_dir, EVAL_RESULTS)
            write_results(path, results)
            _write_summaries(os.path.join(output_dir, "eval"), results)
            written.append(path)
    if settings.do_predict:
        for split in task.test_splits:
            predictions = trainer.predict(settings.predict_batch_size, split=split)
            if trainer.is_chief:
                path = task.write_predictions(split, predictions, output_dir)
                logging.info("Wrote %s predictions to %s", split, path)
                written.append(path)
    return RunResult(results, written)


def _write_summaries(directory, results):
    writer = tf.summary.create_file_writer(directory)
    with writer.as_default(step=int(results["global_step"])):
        for name, value in results.items():
            if name != "global_step":
                tf.summary.scalar(name, value)
    writer.close()
