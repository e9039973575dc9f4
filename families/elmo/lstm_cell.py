"""One LSTM with projection (LSTMP, Sak et al. 2014) as the original runs it:
TensorFlow 1's `LSTMCell(dim, num_proj, cell_clip, proj_clip)`, weights as in
`lm_weights.hdf5` (`W_0`, `B`, `W_P_0`)."""

import keras
from keras import ops

FORGET_BIAS = 1.0  # added to the forget gate at run time, never stored in B


@keras.saving.register_keras_serializable(package="bert_garden")
class LSTMPCell(keras.layers.Layer):
    """`W_0` [input + output, 4 * dim] holds the gates in TF1's order i, j, f, o
    (input, candidate, forget, output); `W_P_0` [dim, projection] exists only when
    `projection_dim < dim`. A clip of None does not clip (the original's absent key).

    `input_part(x)` is `x W_0[:input] + B` for every step at once; `step` adds the
    recurrent part and returns the new (c, h), with `step_weights()` read once
    before the steps (a read in each step copies, and under mixed precision
    casts, the weights again every step)."""

    def __init__(self, dim, projection_dim, cell_clip=None, proj_clip=None, **kwargs):
        super().__init__(**kwargs)
        self.dim, self.projection_dim = dim, projection_dim
        self.cell_clip, self.proj_clip = cell_clip, proj_clip

    @property
    def output_dim(self):
        return min(self.dim, self.projection_dim)

    def build(self, input_shape):
        self.input_dim = input_shape[-1]
        self.kernel = self.add_weight(name="W_0", shape=(self.input_dim + self.output_dim, 4 * self.dim),
                                      initializer="glorot_uniform")
        self.bias = self.add_weight(name="B", shape=(4 * self.dim,), initializer="zeros")
        self.projection = (self.add_weight(name="W_P_0", shape=(self.dim, self.projection_dim),
                                           initializer="glorot_uniform")
                           if self.projection_dim < self.dim else None)

    def input_part(self, x):
        return ops.matmul(x, self.kernel[:self.input_dim]) + self.bias

    def step_weights(self):
        """(the recurrent part of `W_0`, `W_P_0` or None) as tensors."""
        projection = None if self.projection is None else ops.convert_to_tensor(self.projection)
        return self.kernel[self.input_dim:], projection

    def step(self, x_part, c, h, weights):
        recurrent, projection = weights
        z = x_part + ops.matmul(h, recurrent)
        i, j, f, o = ops.split(z, 4, axis=-1)
        c = ops.sigmoid(f + FORGET_BIAS) * c + ops.sigmoid(i) * ops.tanh(j)
        if self.cell_clip is not None:
            c = ops.clip(c, -self.cell_clip, self.cell_clip)
        h = ops.sigmoid(o) * ops.tanh(c)
        if projection is not None:
            h = ops.matmul(h, projection)
            if self.proj_clip is not None:
                h = ops.clip(h, -self.proj_clip, self.proj_clip)
        return c, h

    def get_config(self):
        return {**super().get_config(), "dim": self.dim, "projection_dim": self.projection_dim,
                "cell_clip": self.cell_clip, "proj_clip": self.proj_clip}
