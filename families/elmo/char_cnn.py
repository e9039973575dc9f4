"""The token representation from characters: the original's character CNN
(Kim et al. 2016) with its highways and projection, weights named as in
`lm_weights.hdf5` (`char_embed`, `CNN/W_cnn_i`, `CNN_high_i/*`, `CNN_proj/*`)."""

import keras
from keras import ops

from families.elmo.config import N_CHARACTERS, CharCNNOptions
from families.elmo.highway import Highway
from families.elmo.token_embedding import padding_row_zero


@keras.saving.register_keras_serializable(package="bert_garden")
class Projection(keras.layers.Layer):
    """`x W_proj + b_proj`, the original's `CNN_proj` (a plain affine map)."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        dim = input_shape[-1]
        self.w_proj = self.add_weight(name="W_proj", shape=(dim, self.units),
                                      initializer=keras.initializers.RandomNormal(stddev=(1.0 / dim) ** 0.5))
        self.b_proj = self.add_weight(name="b_proj", shape=(self.units,), initializer="zeros")

    def call(self, x):
        return ops.matmul(x, self.w_proj) + self.b_proj

    def get_config(self):
        return {**super().get_config(), "units": self.units}


@keras.saving.register_keras_serializable(package="bert_garden")
class CharCNN(keras.layers.Layer):
    """int char ids [..., max_characters] -> float [..., projection_dim].

    `char_embed` has 262 rows whatever `n_characters` says (261 in training
    options): ids are the original's + 1, and row 0, for the all-zero padding
    tokens, stays zero in released weights (the original adds it at load).
    Each filter runs over the token's characters, is max-pooled over them, then
    takes the activation; highways and the projection (present when the
    filters' total differs from `projection_dim`) follow.
    """

    def __init__(self, options, projection_dim, **kwargs):
        super().__init__(**kwargs)
        self.options = options if isinstance(options, CharCNNOptions) else CharCNNOptions(
            **{**options, "filters": tuple(tuple(f) for f in options["filters"])})
        self.projection_dim = projection_dim
        self.highways = [Highway(dtype=self.dtype_policy, name=f"CNN_high_{i}")
                         for i in range(self.options.n_highway or 0)]
        self.projection = (Projection(projection_dim, dtype=self.dtype_policy, name="CNN_proj")
                           if self.options.n_filters != projection_dim else None)

    def build(self, input_shape=None):
        cnn = self.options
        self.char_embed = self.add_weight(
            name="char_embed", shape=(N_CHARACTERS, cnn.embedding_dim),
            initializer=padding_row_zero(keras.initializers.RandomUniform(-1.0, 1.0)))
        uniform = cnn.activation == "relu"
        self.kernels, self.biases = [], []
        for i, (width, number) in enumerate(cnn.filters):
            # The original's initializers: Kim et al.'s +-0.05 for relu, Glorot-like normal for tanh.
            init = (keras.initializers.RandomUniform(-0.05, 0.05) if uniform else
                    keras.initializers.RandomNormal(stddev=(1.0 / (width * cnn.embedding_dim)) ** 0.5))
            self.kernels.append(self.add_weight(name=f"W_cnn_{i}", initializer=init,
                                                shape=(1, width, cnn.embedding_dim, number)))
            self.biases.append(self.add_weight(name=f"b_cnn_{i}", shape=(number,), initializer="zeros"))
        for highway in self.highways:
            highway.build((None, cnn.n_filters))
        if self.projection is not None:
            self.projection.build((None, cnn.n_filters))

    def call(self, char_ids):
        cnn = self.options
        leading = ops.shape(char_ids)[:-1]
        ids = ops.reshape(char_ids, (-1, cnn.max_characters_per_token))
        # One padding token more than the batch holds, dropped after pooling, so
        # that no convolution sees zero tokens: TensorFlow's oneDNN convolution
        # (on by default on CPUs with AVX-512 VNNI, bf16 or AMX) answers an empty
        # batch with its input's shape, and Keras's eager max refuses one.
        ids = ops.concatenate([ids, ops.zeros((1, cnn.max_characters_per_token), ids.dtype)], axis=0)
        x = ops.take(self.char_embed, ids, axis=0)  # [tokens + 1, chars, dim]
        activation = ops.relu if cnn.activation == "relu" else ops.tanh
        pooled = [activation(ops.max(ops.conv(x, kernel[0], padding="valid") + bias, axis=1))
                  for kernel, bias in zip(self.kernels, self.biases)]
        x = ops.concatenate(pooled, axis=-1)[:-1]
        for highway in self.highways:
            x = highway(x)
        if self.projection is not None:
            x = self.projection(x)
        return ops.reshape(x, (*leading, self.projection_dim))

    def get_config(self):
        options = {**vars(self.options), "filters": [list(f) for f in self.options.filters]}
        return {**super().get_config(), "options": options, "projection_dim": self.projection_dim}
