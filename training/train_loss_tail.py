"""The training loss a run ends with: the mean of the task's own loss (the
task's `loss`, without an encoder's auxiliary loss or Keras regularization)
over the last `TAIL_FRACTION` of the steps, at least the last step. Saved
with every checkpoint, so a run killed in those steps and resumed reports the
same mean, and so does a run started again once trained.

Example:
>>> tail = TrainLossTail()
>>> tail.start(tail_start(100))  # steps 90..99
>>> for step in range(100):
...     tail.add(step, 0.31)  # in the train loop, the step's loss before it counts
>>> tail.mean()
0.31
"""

import tensorflow as tf

TAIL_FRACTION = 0.1


def tail_start(num_steps):
    """The first step (counted from 0) of the last `TAIL_FRACTION` of `num_steps`,
    the last step alone when that is less than one step."""
    return num_steps - max(1, int(num_steps * TAIL_FRACTION))


class TrainLossTail(tf.Module):
    """The summed loss and the steps counted since `first_step`, in variables a
    checkpoint saves. Created outside any distribution strategy: every worker
    adds the same loss, reduced over all replicas."""

    def __init__(self):
        super().__init__(name="train_loss_tail")
        self.first_step = tf.Variable(-1, dtype=tf.int64, trainable=False, name="first_step")
        self.loss_sum = tf.Variable(0.0, dtype=tf.float64, trainable=False, name="loss_sum")
        self.steps = tf.Variable(0, dtype=tf.int64, trainable=False, name="steps")

    def start(self, first_step):
        """Counts from `first_step`; what a checkpoint restored for the same
        first step holds is kept, anything else starts again from nothing."""
        if int(self.first_step.numpy()) != first_step:
            self.first_step.assign(first_step)
            self.loss_sum.assign(0.0)
            self.steps.assign(0)

    def add(self, step, loss):
        """Counts `loss`, the loss of step `step` (from 0), if the step is one of
        the last; graph-friendly, for the train loop's `tf.function`."""
        counted = tf.cast(tf.convert_to_tensor(step, tf.int64) >= self.first_step, tf.int64)
        self.loss_sum.assign_add(tf.cast(counted, tf.float64) * tf.cast(loss, tf.float64))
        self.steps.assign_add(counted)

    def mean(self):
        """The mean loss of the steps counted, None before any."""
        steps = int(self.steps.numpy())
        return float(self.loss_sum.numpy()) / steps if steps else None
