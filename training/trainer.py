"""The shared training loop: one `Task` under any `tf.distribute` strategy.

A custom loop rather than `model.fit`, because Keras 3's `fit` fails under
`MultiWorkerMirroredStrategy`: `strategy.run` of a step that takes a
`tf.GradientTape` over the Keras model, sums the gradients over micro-batches
and replicas, and hands them to the Keras optimizer. The same loop serves
one_device, mirrored, multi_worker_mirrored and TPU strategies.

Checkpoints hold the model (a dict keyed by `variable.path`, the layout
`checkpoints.loader` reads), the optimizer, the step, the dropout RNG state and
the input iterator, the state a task carries from step to step
(`Task.initial_state`, XLNet's memory) and the task's loss over the run's last
steps (`training.train_loss_tail`), so a killed run restarted with the
same command continues as if it had not stopped. A missing or damaged newest checkpoint is skipped
for the one before (`utils/checkpoint_files.py`); the chief holds a lock on
output_dir so that two runs cannot interleave their files there.
"""

import math
import os
import shutil
import time

import keras
import numpy as np
import tensorflow as tf
from absl import logging

from training.step_state import StepState
from training.task import Task
from training.train_loss_tail import TrainLossTail, tail_start
from utils.checkpoint_files import name_newest, remove_temporary_saves, restore_newest
from utils.files import atomic_write_text
from utils.output_dir_lock import lock_output_dir
from utils.padded_batches import pad_batch, real_rows

CHECKPOINT_NAME = "ckpt"


class Trainer:
    """Trains, evaluates and predicts one task.

    The train batch size is per optimizer update: it is split over
    `grad_accum_steps` micro-batches and over the replicas, so changing either
    leaves the arithmetic unchanged. The loss is the mean of the task's
    per-example losses over that batch, plus the model's Keras regularization
    losses (`model.losses`: ELMo's L2 on its scalar mix) once per batch. The
    task's own loss (`Task.loss`, without the auxiliary or regularization
    losses) is logged apart as `task_loss` where it differs, and its mean over
    the last tenth of the steps is `train_loss()`.

    Example:
    >>> trainer = Trainer(task, RunOptions(output_dir="/tmp/run"))
    >>> trainer.train(batch_size=32, num_steps=1000,
    ...               optimizer=OptimizerConfig(learning_rate=5e-5, num_warmup_steps=100))
    >>> trainer.evaluate(batch_size=32)
    {'loss': 0.41, 'accuracy': 0.85, 'global_step': 1000}
    """

    def __init__(self, task, options):
        self.task = task
        self.options = options
        self.strategy = options.create_strategy()
        self.is_chief = _is_chief(self.strategy)
        if self.is_chief:  # Other workers save into their own directories.
            lock_output_dir(options.output_dir)
            remove_temporary_saves(options.output_dir, CHECKPOINT_NAME)
        keras.utils.set_random_seed(options.seed)
        with self.strategy.scope(), options.dtype_policy():
            self.model = task.build_model()
            self.metrics = task.build_metrics()
            self.global_step = tf.Variable(0, dtype=tf.int64, trainable=False, name="global_step")
        self._loss_tail = TrainLossTail()
        self._weights_ready = False
        self._inference_steps = {}

    # --- Checkpoints -------------------------------------------------------

    def _checkpoint(self, optimizer=None, iterator=None):
        """The object graph every checkpoint of this trainer has."""
        weights = {id(v) for v in self.model.weights}
        objects = {
            "model": {v.path: v.value for v in self.model.weights},
            # Dropout seed states: their paths depend on creation order, so a list.
            "rng": [v.value for v in self.model.variables if id(v) not in weights],
            "step": self.global_step,
        }
        if optimizer is not None:
            variables = {v.path: v.value for v in optimizer.variables}
            if len(variables) != len(optimizer.variables):
                raise ValueError("optimizer variables must have unique paths to be checkpointed")
            objects["optimizer"] = variables
        if iterator is not None:
            objects["data"] = iterator
        return tf.train.Checkpoint(**objects)

    def _restore_or_initialize(self, checkpoint, partial):
        """Resumes from the newest checkpoint in output_dir that restores (older
        ones when the newest is missing or damaged), or initialises the model
        once (`task.initialize`, e.g. from --init_checkpoint)."""

        def restore(prefix):
            try:
                status = checkpoint.restore(prefix)
                if partial:
                    status.expect_partial()
                else:
                    status.assert_existing_objects_matched()
            except (tf.errors.OpError, ValueError) as e:
                message = e.message if isinstance(e, tf.errors.OpError) else str(e)
                raise ValueError(
                    f"{prefix} does not fit this run (the model or the input pipeline changed "
                    f"since it was written): {message.strip().splitlines()[0]}. To start from "
                    f"its weights, use a new output_dir with --init_checkpoint="
                    f"{self.options.output_dir}") from None

        restored = restore_newest(self.options.output_dir, CHECKPOINT_NAME, restore)
        if restored:
            logging.info("Restored %s (step %d)", restored, int(self.global_step.numpy()))
            if self.is_chief:
                name_newest(self.options.output_dir, CHECKPOINT_NAME, restored)
            self._weights_ready = True
        elif not self._weights_ready:
            with self.strategy.scope():
                self.task.initialize(self.model)
            self._weights_ready = True

    def _save(self, manager):
        manager.save(checkpoint_number=self.global_step)
        if not self.is_chief:  # Every worker must take part in a save; only the chief's stays.
            shutil.rmtree(manager.directory, ignore_errors=True)

    def _manager(self, checkpoint):
        directory = self.options.output_dir
        if not self.is_chief:
            resolver = self.strategy.cluster_resolver
            directory = os.path.join(directory, f".tmp_{resolver.task_type}_{resolver.task_id}")
        return tf.train.CheckpointManager(
            checkpoint, directory, max_to_keep=self.options.keep_checkpoint_max,
            checkpoint_name=CHECKPOINT_NAME)

    # --- Training ----------------------------------------------------------

    def _make_optimizer(self, config, num_steps):
        with self.strategy.scope():
            optimizer = config.build(num_steps, aggregate_gradients=False)
            if self.options.mixed_precision == "fp16":
                optimizer = keras.optimizers.LossScaleOptimizer(optimizer)
            optimizer.build(self.model.trainable_variables)
        return optimizer

    def _step_state(self, batch_size, checkpoint):
        """The task's state carried from step to step (None without one), saved
        with `checkpoint`: attached after the restore, it takes the value the
        checkpoint resumed holds; older checkpoints hold none."""
        rows = batch_size // self.options.grad_accum_steps // self.strategy.num_replicas_in_sync
        initial = self.task.initial_state(rows)
        if initial is None:
            return None
        state = StepState(self.strategy, initial, self.options.grad_accum_steps)
        checkpoint.state = state
        step = int(self.global_step.numpy())
        if step and not state.restored:
            logging.info("The checkpoint resumed holds no state carried from step to step (XLNet's "
                         "memory): it restarts from its initial value at step %d", step)
        return state

    def _make_train_loop(self, optimizer, batch_size, state):
        """A `tf.function(iterator, num_steps)` running `num_steps` updates; it
        returns their mean training loss and mean task loss."""
        model, task, strategy = self.model, self.task, self.strategy
        variables = model.trainable_variables
        scale_loss = self.options.mixed_precision == "fp16"
        rows = batch_size // self.options.grad_accum_steps // strategy.num_replicas_in_sync

        def forward_backward(features, labels, carried):
            with tf.GradientTape() as tape:
                outputs, carried = task.forward(model, features, carried, training=True)
                loss = tf.reduce_sum(task.training_loss(labels, outputs)) / batch_size
                if model.losses:
                    # Keras regularizers (ELMo's L2 on its scalar mix): once per global
                    # batch, shared out over the replicas and micro-batches.
                    loss += tf.add_n([tf.cast(l, loss.dtype) for l in model.losses]) * (rows / batch_size)
                scaled = optimizer.scale_loss(loss) if scale_loss else loss
            grads = tape.gradient(scaled, variables)
            task_loss = tf.reduce_sum(task.loss(labels, outputs)) / batch_size
            # Dense: embedding gradients come as IndexedSlices with repeated rows,
            # which neither add up across micro-batches nor give the true global norm.
            return (loss, task_loss, [None if g is None else tf.convert_to_tensor(g) for g in grads],
                    outputs, carried)

        if self.options.jit_compile:
            forward_backward = tf.function(forward_backward, jit_compile=True)

        def replica_step(micro_batches):
            total_loss, total_task_loss, total_grads = 0.0, 0.0, None
            for i, (features, labels) in enumerate(micro_batches):
                carried = None if state is None else state.read(i)
                loss, task_loss, grads, outputs, carried = forward_backward(features, labels, carried)
                if state is not None:
                    state.write(i, carried)
                task.update_metrics(self.metrics, labels, outputs)
                total_loss += loss
                total_task_loss += task_loss
                total_grads = grads if total_grads is None else [
                    None if a is None else a + b for a, b in zip(total_grads, grads)]
            # Variables without a gradient (the pooler when there is no NSP head) stay put.
            pairs = [(g, v) for g, v in zip(total_grads, variables) if g is not None]
            # Summed here, before the optimizer clips them by their global norm.
            grads = tf.distribute.get_replica_context().all_reduce(
                tf.distribute.ReduceOp.SUM, [g for g, _ in pairs])
            optimizer.apply(grads, [v for _, v in pairs])
            return total_loss, total_task_loss

        @tf.function
        def train_loop(iterator, num_steps):
            loss_sum, task_loss_sum = tf.constant(0.0), tf.constant(0.0)
            for _ in tf.range(num_steps):
                micro_batches = [self._replica_slices(next(iterator), rows)
                                 for _ in range(self.options.grad_accum_steps)]
                loss, task_loss = strategy.run(replica_step, args=(micro_batches,))
                task_loss = strategy.reduce(tf.distribute.ReduceOp.SUM, task_loss, axis=None)
                loss_sum += strategy.reduce(tf.distribute.ReduceOp.SUM, loss, axis=None)
                task_loss_sum += task_loss
                self._loss_tail.add(self.global_step, task_loss)
                self.global_step.assign_add(1)
            return loss_sum / tf.cast(num_steps, tf.float32), task_loss_sum / tf.cast(num_steps, tf.float32)

        return train_loop

    def _replica_slices(self, batch, rows):
        """Each replica's `rows` rows of a global (micro-)batch: every worker reads
        the same batches from a plain tf.data iterator (checkpointable, and
        without the per-device pipelines of a distributed one, see
        `without_autotune`) and keeps its replicas' slices, whatever the cluster."""
        def value_fn(context):
            start = context.replica_id_in_sync_group * rows
            return tf.nest.map_structure(lambda t: t[start:start + rows], batch)
        return self.strategy.experimental_distribute_values_from_function(value_fn)

    def train(self, batch_size, num_steps, optimizer):
        """Trains until `global_step == num_steps`, resuming from output_dir.

        `optimizer` is a `training.optimization.OptimizerConfig`; its schedule
        decays to 0 at `num_steps`. Returns the progress records logged.
        """
        per_update = self.options.grad_accum_steps * self.strategy.num_replicas_in_sync
        if batch_size % per_update:
            raise ValueError(
                f"train batch size {batch_size} is not divisible by grad_accum_steps x replicas "
                f"= {self.options.grad_accum_steps} x {self.strategy.num_replicas_in_sync}")
        _check_writable(self.options.output_dir)
        keras_optimizer = self._make_optimizer(optimizer, num_steps)
        # Autotuned, unlike inference (see `without_autotune`): the options change
        # the pipeline an iterator checkpoint records, and earlier runs must resume.
        iterator = iter(self.task.build_dataset(
            "train", batch_size // self.options.grad_accum_steps, training=True))
        checkpoint = self._checkpoint(keras_optimizer, iterator)
        self._restore_or_initialize(checkpoint, partial=False)
        state = self._step_state(batch_size, checkpoint)
        # Attached after the restore, as the step state: it takes the value the checkpoint
        # resumed holds (checkpoints written before it hold none: it counts from the resume).
        checkpoint.train_loss_tail = self._loss_tail
        self._loss_tail.start(tail_start(num_steps))
        manager = self._manager(checkpoint)
        train_loop = self._make_train_loop(keras_optimizer, batch_size, state)
        writer = (tf.summary.create_file_writer(os.path.join(self.options.output_dir, "train"))
                  if self.is_chief else tf.summary.create_noop_writer())
        records = []
        step = int(self.global_step.numpy())
        if step >= num_steps:
            logging.info("Already trained to step %d of %d", step, num_steps)
            return records
        logging.info("Training from step %d to %d, batch %d", step, num_steps, batch_size)
        # Mean losses and examples/s over each log interval; saving is not training time.
        interval_loss, interval_task_loss, interval_steps, interval_seconds = 0.0, 0.0, 0, 0.0
        while step < num_steps:
            chunk = _steps_to_boundary(step, num_steps, self.options.steps_per_loop,
                                       self.options.log_steps, self.options.save_checkpoints_steps)
            start = time.perf_counter()
            loss, task_loss = (float(v) for v in train_loop(iterator, tf.constant(chunk, tf.int32)))
            interval_seconds += time.perf_counter() - start
            interval_loss, interval_steps = interval_loss + loss * chunk, interval_steps + chunk
            interval_task_loss += task_loss * chunk
            step += chunk
            if step % self.options.log_steps == 0 or step == num_steps:
                records.append(self._log(
                    step, interval_loss / interval_steps, interval_task_loss / interval_steps,
                    keras_optimizer, writer, interval_steps * batch_size / max(interval_seconds, 1e-9)))
                interval_loss, interval_task_loss, interval_steps, interval_seconds = 0.0, 0.0, 0, 0.0
            if step % self.options.save_checkpoints_steps == 0 or step == num_steps:
                self._save(manager)
        writer.flush()
        return records

    def train_loss(self):
        """The mean task loss (`Task.loss` alone) over the last tenth of the
        steps `train` ran to (`training.train_loss_tail`), also when they ran
        before a resume; None before `train` or when no step of them was seen."""
        return self._loss_tail.mean()

    def _log(self, step, loss, task_loss, optimizer, writer, examples_per_second):
        if not np.isfinite(loss):
            raise FloatingPointError(f"training loss is {loss} at step {step}")
        # The task's own loss, where an auxiliary or regularization loss joins it (not
        # where only rounding differs: ELMo's pretraining rescales its loss's gradient).
        own = {} if math.isclose(task_loss, loss, rel_tol=1e-6) else {"task_loss": task_loss}
        record = {"step": step, "loss": loss, **own,
                  **{m.name: float(m.result()) for m in self.metrics},
                  "learning_rate": float(optimizer.learning_rate),
                  "examples_per_second": examples_per_second}
        for metric in self.metrics:
            metric.reset_state()
        logging.info("step %d: %s", step, ", ".join(
            f"{k} = {v:.4g}" for k, v in record.items() if k != "step"))
        with writer.as_default(step=step):
            for name, value in record.items():
                if name != "step":
                    tf.summary.scalar(name, value)
        return record

    # --- Evaluation and prediction -----------------------------------------

    def _ensure_weights(self):
        if not self._weights_ready:
            self._restore_or_initialize(self._checkpoint(), partial=True)

    def _run_inference(self, split, batch_size, max_steps, evaluating, gather):
        """One pass over `split`: mean loss and example count (when evaluating)
        and the gathered outputs of the real (not padding) rows."""
        step = self._inference_steps.get((evaluating, gather))
        if step is None:
            step = self._inference_steps[evaluating, gather] = self._make_inference_step(
                evaluating, gather)
        # The last batch is padded to a multiple of the replicas: equal slices.
        replicas = self.strategy.num_replicas_in_sync
        padded_size = -(-batch_size // replicas) * replicas
        batches = without_autotune(self.task.build_dataset(split, batch_size, training=False).map(
            lambda features, labels: pad_batch(features, labels, padded_size)))
        # Traced once for every batch shape the dataset can give (a smaller last batch, lengths
        # trimmed to each batch's longest row): traced on the first batch's shapes instead, the
        # step was traced again at the first batch of other shapes (a tiny ELMo classifier's pass
        # over 128 training examples after its dev pass: 4.9 s, 1.2 s without the second trace).
        step.get_concrete_function(batches.element_spec)
        loss_sum, count, pieces = 0.0, 0, []
        for i, batch in enumerate(batches):
            if max_steps is not None and i >= max_steps:
                break
            loss, n, gathered = step(batch)
            loss_sum, count = loss_sum + float(loss), count + int(n)
            if gather:
                pieces.append(tf.nest.map_structure(
                    lambda t: np.concatenate(
                        [np.asarray(x) for x in self.strategy.experimental_local_results(t)]),
                    gathered))
        predictions = {k: np.concatenate([p[k] for p in pieces]) for k in pieces[0]} if pieces else {}
        return loss_sum / max(count, 1), count, predictions

    def _make_inference_step(self, evaluating, gather):
        """A `tf.function(batch)` -> (summed loss, example count, outputs and labels)."""
        model, task = self.model, self.task

        def replica_step(batch):
            features, labels, valid = batch
            outputs = model(features, training=False)
            labels, outputs = real_rows((labels, outputs), valid)
            gathered = task.gathered(labels, outputs) if gather else {}
            if not evaluating:  # Prediction: labels may be absent.
                return tf.constant(0.0), tf.constant(0), gathered
            per_example = task.loss(labels, outputs)
            task.update_metrics(self.metrics, labels, outputs)
            return tf.reduce_sum(per_example), tf.size(per_example), gathered

        @tf.function(reduce_retracing=True)
        def step(batch):
            rows = tf.shape(batch[2])[0] // self.strategy.num_replicas_in_sync
            loss, count, gathered = self.strategy.run(
                replica_step, args=(self._replica_slices(batch, rows),))
            return (self.strategy.reduce(tf.distribute.ReduceOp.SUM, loss, axis=None),
                    self.strategy.reduce(tf.distribute.ReduceOp.SUM, count, axis=None), gathered)

        return step

    def evaluate(self, batch_size, split="dev", max_steps=None):
        """Mean loss and the task's metrics over `split` (at most `max_steps`
        batches), plus `task.evaluate(predictions)` when the task defines it.

        Uses the weights trained in this process, else the newest checkpoint in
        output_dir, else `task.initialize`.
        """
        self._ensure_weights()
        for metric in self.metrics:
            metric.reset_state()
        whole_split = type(self.task).evaluate is not Task.evaluate
        loss, count, predictions = self._run_inference(
            split, batch_size, max_steps, evaluating=True, gather=whole_split)
        if not count:  # Metrics over nothing would read as a model that scores 0.
            limit = "" if max_steps is None else f" in at most {max_steps} batches"
            raise ValueError(f"no examples to evaluate{limit} in {self.task.input_name(split)}")
        logging.info("Evaluated %d examples of %s", count, self.task.input_name(split))
        results = {"loss": loss, **{m.name: float(m.result()) for m in self.metrics}}
        if whole_split:
            results.update(self.task.evaluate(predictions))
        results["global_step"] = int(self.global_step.numpy())
        return results

    def predict(self, batch_size, split="test"):
        """{name: array over all examples} of the model's outputs and the
        dataset's labels (which carry ids such as SQuAD's `unique_ids`).
        Gathers on this worker only: run prediction with one worker."""
        self._ensure_weights()
        return self._run_inference(split, batch_size, None, evaluating=False, gather=True)[2]


def without_autotune(dataset):
    """`dataset` without tf.data's autotuner, for the one pass of evaluation and
    prediction. The autotuner's thread sleeps 10 ms, then twice as long each
    round up to 60 s, and deleting an iterator can wait for the sleep to end:
    a 14 s training run took 23 s, and the per-device pipelines of a
    distributed dataset (whose autotuner these options do not reach) made a
    6 s MRPC evaluation pass take 10.4 s. Parallel maps then run one call per
    core (up to 16), plenty for inputs that cost little beside the model."""
    options = tf.data.Options()
    options.autotune.enabled = False
    return dataset.with_options(options)


def write_results(path, results):
    """`key = value` lines sorted by key, as the original `eval_results.txt`; atomic."""
    atomic_write_text(path, "".join(f"{k} = {results[k]}\n" for k in sorted(results)))


def _steps_to_boundary(step, num_steps, *intervals):
    """Steps until the next multiple of any interval, or the end."""
    return min([num_steps - step] + [interval - step % interval for interval in intervals])


def _is_chief(strategy):
    resolver = getattr(strategy, "cluster_resolver", None)
    if resolver is None or not resolver.task_type:
        return True
    if resolver.task_type == "chief":
        return True
    return (resolver.task_type == "worker" and resolver.task_id == 0
            and "chief" not in resolver.cluster_spec().as_dict())


def _check_writable(directory):
    """Fails before any work when output_dir cannot take checkpoints."""
    try:
        tf.io.gfile.makedirs(directory)
        probe = os.path.join(directory, f".write_probe_{os.getpid()}")
        with tf.io.gfile.GFile(probe, "w") as f:
            f.write("")
        tf.io.gfile.remove(probe)
    except (OSError, tf.errors.OpError) as e:
        raise PermissionError(f"output_dir {directory!r} is not writable: {e}") from None
