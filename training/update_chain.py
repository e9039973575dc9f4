"""Optimizer updates one variable after another in a TensorFlow graph.

TensorFlow's executor runs the per-variable updates of a step side by side,
so the temporaries of all of them (new moments, directions, decay terms:
several copies of the model's weights) are alive at once. Chaining the
updates keeps one variable's temporaries at a time: BERT-Base's CPU training
step peaks 1 GB lower (benchmarks/cpu_train_step.py) at the same step time.
Elsewhere (eager TensorFlow, JAX under XLA's own scheduling) it does nothing.
"""

import contextlib

import keras


class UpdateChain:
    """Makes each `link` block run after the previous block's variable was written."""

    def __init__(self):
        self._previous = None

    @contextlib.contextmanager
    def link(self, variable):
        if keras.backend.backend() != "tensorflow":
            yield
            return
        import tensorflow as tf
        if not tf.inside_function():
            yield
            return
        with tf.control_dependencies([] if self._previous is None else [self._previous]):
            yield
            # Reading the variable orders it after the block's write (automatic
            # control dependencies on one resource); the next block waits for it.
            self._previous = tf.identity(variable)
