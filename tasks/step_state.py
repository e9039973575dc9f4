"""State a training step hands to the next (XLNet's memory of the previous
segment), kept in variables because the train loop is a `tf.function` called
once per chunk of steps.

One copy per replica (sync-on-read variables: each replica reads and writes its
own) and per micro-batch, since each micro-batch of an update continues its own
rows. Not checkpointed: a resumed run starts from the initial state, as the
original XLNet does.
"""

import tensorflow as tf


class StepState:
    """`num_slots` copies of `initial` (one replica's nest of tensors) per replica.

    Example:
    >>> state = StepState(strategy, task.initial_state(4), num_slots=2)
    >>> outputs, new = task.forward(model, features, state.read(0), training=True)
    >>> state.write(0, new)  # inside strategy.run
    """

    def __init__(self, strategy, initial, num_slots):
        def variable(value):
            return tf.Variable(value, trainable=False,
                               synchronization=tf.VariableSynchronization.ON_READ,
                               aggregation=tf.VariableAggregation.NONE)

        with strategy.scope():
            self._slots = [tf.nest.map_structure(variable, initial) for _ in range(num_slots)]

    def read(self, slot):
        """This replica's state for micro-batch `slot` (in replica context)."""
        return tf.nest.map_structure(lambda v: v.read_value(), self._slots[slot])

    def write(self, slot, state):
        """Stores `state` as this replica's for `slot`; no gradient passes through it."""
        tf.nest.map_structure(lambda v, t: v.assign(tf.cast(tf.stop_gradient(t), v.dtype)),
                              self._slots[slot], state)
