"""One direction of the biLM: `n_layers` LSTMP cells stacked, run over a
batch of masked sequences, from a zero state, a given state, or (stateful) the
state the previous call ended with, as the original does. Weights named as
`RNN_k/RNN/MultiRNNCell/Cell{l}`."""

import keras
from keras import ops

from families.elmo.config import LSTMOptions
from families.elmo.lstm_cell import LSTMPCell


@keras.saving.register_keras_serializable(package="bert_garden")
class LSTMStack(keras.layers.Layer):
    """x [batch, time, in], mask bool [batch, time] (real steps first) ->
    (every layer's output [batch, time, out], zero on masked steps; every
    layer's final state (c [batch, dim], h [batch, out])).

    Layers from the second on add their input to their output (the original's
    `ResidualWrapper`) when `use_skip_connections`. A masked step leaves the
    state as it was, so a row's final state is the one after its last real step
    (TF1 `dynamic_rnn` with `sequence_length`).

    The first state: `initial_state` when given (a (c, h) per layer: the
    original's training feeds each batch the state the previous one ended with);
    else with `stateful=False` (tasks, feature extraction, the encoder's
    default) zeros; with `stateful=True` (the original `bilm` at inference) row
    r starts from the state row r ended the previous call with, kept in
    non-trainable variables for up to `max_batch_size` rows; `reset_states()`
    zeroes them.

    `dropout` (training only) drops each layer's input, as the original's
    `DropoutWrapper(input_keep_prob)` around each cell: the skip connection
    adds the dropped input.
    """

    def __init__(self, options, stateful=False, max_batch_size=128, dropout=0.0, **kwargs):
        super().__init__(**kwargs)
        self.options = options if isinstance(options, LSTMOptions) else LSTMOptions(**options)
        self.stateful, self.max_batch_size, self.dropout = stateful, max_batch_size, dropout
        o = self.options
        self.cells = [LSTMPCell(o.dim, o.projection_dim, o.cell_clip, o.proj_clip, dtype=self.dtype_policy,
                                name=f"Cell{layer}")
                      for layer in range(o.num_layers)]
        self.input_dropouts = [keras.layers.Dropout(dropout, name=f"Cell{layer}_input_dropout")
                               for layer in range(o.num_layers)] if dropout else []
        self.states = []  # stateful: [c, h] per layer, made in `build`

    def build(self, input_shape):
        width = input_shape[-1]
        for cell in self.cells:
            cell.build((None, width))
            width = cell.output_dim
        self.states = []
        if self.stateful:
            for cell in self.cells:
                self.states.append([self.add_weight(name=f"{cell.name}_{part}", trainable=False,
                                                    shape=(self.max_batch_size, size), initializer="zeros")
                                    for part, size in (("c", cell.dim), ("h", cell.output_dim))])

    @property
    def state_variables(self):
        """The variables a stateful stack keeps its states in: not weights, so
        no checkpoint holds them (`checkpoints.loader` leaves them as they are)."""
        return [variable for state in self.states for variable in state]

    def reset_states(self):
        for state in self.states:
            for variable in state:
                variable.assign(ops.zeros_like(variable))

    def _first_state(self, layer, batch, dtype, initial_state):
        cell = self.cells[layer]
        if initial_state is not None:
            return tuple(ops.cast(s, dtype) for s in initial_state[layer])
        if self.stateful:
            return tuple(ops.cast(ops.take(ops.convert_to_tensor(s), ops.arange(batch), axis=0), dtype)
                         for s in self.states[layer])
        return ops.zeros((batch, cell.dim), dtype), ops.zeros((batch, cell.output_dim), dtype)

    def call(self, x, mask, initial_state=None, training=None):
        batch = ops.shape(x)[0]
        real = ops.cast(ops.expand_dims(mask, -1), x.dtype)
        outputs, finals = [], []
        for layer, cell in enumerate(self.cells):
            if self.input_dropouts:
                x = self.input_dropouts[layer](x, training=training)
            c0, h0 = self._first_state(layer, batch, x.dtype, initial_state)
            # One scanned tensor, the mask as its last feature: Keras's TensorFlow
            # scan cannot take several when the number of steps is unknown.
            steps = ops.concatenate([cell.input_part(x), real], -1)

            def step(carry, inputs, cell=cell, weights=cell.step_weights()):
                c, h = carry
                new_c, new_h = cell.step(inputs[:, :-1], c, h, weights)
                keep = inputs[:, -1:] > 0
                carry = (ops.where(keep, new_c, c), ops.where(keep, new_h, h))
                return carry, carry  # Keras's TensorFlow scan wants outputs shaped as the carry

            (c, h), (_, y) = ops.scan(step, (c0, h0), ops.transpose(steps, (1, 0, 2)))
            # The carried h is the step's output on real steps; padding outputs zero.
            y = ops.transpose(y, (1, 0, 2)) * real
            if layer > 0 and self.options.use_skip_connections:
                y = y + x * real
            if self.stateful:
                self._keep(self.states[layer], (c, h), batch)
            outputs.append(y)
            finals.append((c, h))
            x = y
        return outputs, finals

    def _keep(self, variables, finals, batch):
        """Writes `finals` [batch, size] over the first rows of `variables`
        [max_batch_size, size], in shapes that do not depend on `batch` (JAX
        traces with a symbolic one)."""
        rows = ops.arange(self.max_batch_size)
        for variable, final in zip(variables, finals):
            spread = ops.cast(ops.take(final, ops.minimum(rows, batch - 1), axis=0), variable.dtype)
            variable.assign(ops.where(ops.expand_dims(rows < batch, 1), spread, ops.convert_to_tensor(variable)))

    def get_config(self):
        return {**super().get_config(), "options": vars(self.options), "stateful": self.stateful,
                "max_batch_size": self.max_batch_size, "dropout": self.dropout}
