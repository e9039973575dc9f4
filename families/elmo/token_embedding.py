"""The token-embedding variant's token representation: a table lookup in
place of the character CNN, weight named `embedding` as in the original."""

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="bert_garden")
class TokenEmbedding(keras.layers.Layer):
    """int ids [...] -> [..., dim]. Ids are the vocabulary index + 1, as the
    original's `TokenBatcher`: row 0 is padding and stays zero (the original
    adds it at load), so the table has `n_tokens_vocab + 1` rows."""

    def __init__(self, n_tokens_vocab, dim, **kwargs):
        super().__init__(**kwargs)
        self.n_tokens_vocab, self.dim = n_tokens_vocab, dim

    def build(self, input_shape=None):
        self.embedding = self.add_weight(name="embedding", shape=(self.n_tokens_vocab + 1, self.dim),
                                         initializer=padding_row_zero(keras.initializers.RandomUniform(-1.0, 1.0)))

    def call(self, ids):
        return ops.take(self.embedding, ids, axis=0)

    def get_config(self):
        return {**super().get_config(), "n_tokens_vocab": self.n_tokens_vocab, "dim": self.dim}


def padding_row_zero(initializer):
    """`initializer` with row 0, the padding row the original prepends as zeros
    at load, zero from the start too (so a fresh table is what it would be
    after a round trip through `lm_weights.hdf5`)."""
    def initialize(shape, dtype=None):
        values = initializer(shape, dtype)
        return ops.concatenate([ops.zeros_like(values[:1]), values[1:]], axis=0)
    return initialize
