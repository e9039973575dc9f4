"""State a training step hands to the next (XLNet's memory of the previous
segment), kept in variables because the train loop is a `tf.function` called
once per chunk of steps.

One copy per replica (sync-on-read variables: each replica reads and writes its
own) and per micro-batch, since each micro-batch of an update continues its own
rows. Checkpointed with the weights and the input position, so that a resumed
run continues the same memory: saved as the rows of the whole (micro-)batch,
replica after replica as `Trainer._replica_slices` hands them out, gathered
from every replica (and worker) at a save and sliced again at a restore.
"""

import tensorflow as tf


class StepState(tf.__internal__.tracking.Trackable):
    """`num_slots` copies of `initial` (one replica's nest of tensors) per replica.

    `restored` says whether a checkpoint has set it.

    Example:
    >>> state = StepState(strategy, task.initial_state(4), num_slots=2)
    >>> outputs, new = task.forward(model, features, state.read(0), training=True)
    >>> state.write(0, new)  # inside strategy.run
    >>> tf.train.Checkpoint(state=state).save("/tmp/run/ckpt")
    """

    def __init__(self, strategy, initial, num_slots):
        def variable(value):
            return tf.Variable(value, trainable=False,
                               synchronization=tf.VariableSynchronization.ON_READ,
                               aggregation=tf.VariableAggregation.NONE)

        self._strategy = strategy
        with strategy.scope():
            self._slots = [tf.nest.map_structure(variable, initial) for _ in range(num_slots)]
        self.restored = False

    def read(self, slot):
        """This replica's state for micro-batch `slot` (in replica context)."""
        return tf.nest.map_structure(lambda v: v.read_value(), self._slots[slot])

    def write(self, slot, state):
        """Stores `state` as this replica's for `slot`; no gradient passes through it."""
        tf.nest.map_structure(lambda v, t: v.assign(tf.cast(tf.stop_gradient(t), v.dtype)),
                              self._slots[slot], state)

    def _named_variables(self):
        return {f"slot{slot}_{i}": v for slot, nest in enumerate(self._slots)
                for i, v in enumerate(tf.nest.flatten(nest))}

    def _serialize_to_tensors(self):
        strategy = self._strategy
        return {name: strategy.gather(strategy.run(v.read_value), axis=0)
                for name, v in self._named_variables().items()}

    def _restore_from_tensors(self, restored_tensors):
        strategy = self._strategy
        variables = self._named_variables()
        for name, v in variables.items():
            expected = [v.shape[0] * strategy.num_replicas_in_sync, *v.shape[1:]]
            if not restored_tensors[name].shape.is_compatible_with(expected):
                raise ValueError(
                    f"the state carried from step to step (XLNet's memory) was saved with shape "
                    f"{restored_tensors[name].shape}, and this run carries {expected}: the batch "
                    f"size or mem_len changed")

        def assign(tensors):
            replica = tf.distribute.get_replica_context().replica_id_in_sync_group
            for name, v in variables.items():
                rows = v.shape[0]
                v.assign(tensors[name][replica * rows:(replica + 1) * rows])

        strategy.run(assign, args=(restored_tensors,))
        self.restored = True
