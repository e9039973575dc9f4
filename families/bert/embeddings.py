"""Word + position + segment embeddings, LayerNorm, dropout."""

import keras
from keras import ops

from modeling.initializers import bert_initializer
from modeling.layer_norm import LayerNorm


class BertEmbeddings(keras.layers.Layer):
    """Sums word, absolute position and token-type embeddings, then LayerNorm and dropout.

    Example:
    >>> layer = BertEmbeddings(vocab_size=30522, hidden_size=768, max_position_embeddings=512,
    ...                        type_vocab_size=2)
    >>> layer(word_ids, type_ids).shape  # [batch, seq, 768]
    >>> layer(word_ids, type_ids, position_ids)  # packed rows: positions restart per sequence
    """

    def __init__(self, vocab_size, hidden_size, max_position_embeddings, type_vocab_size,
                 dropout_rate=0.1, initializer_range=0.02, layer_norm_eps=1e-12, **kwargs):
        super().__init__(**kwargs)
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.max_position_embeddings = max_position_embeddings
        self.type_vocab_size = type_vocab_size
        self.dropout_rate = dropout_rate
        self.initializer_range = initializer_range
        self.layer_norm_eps = layer_norm_eps
        init = bert_initializer(initializer_range)
        self.word_embeddings = keras.layers.Embedding(
            vocab_size, hidden_size, embeddings_initializer=init, dtype=self.dtype_policy,
            name="word_embeddings")
        self.position_embeddings = keras.layers.Embedding(
            max_position_embeddings, hidden_size, embeddings_initializer=init,
            dtype=self.dtype_policy, name="position_embeddings")
        self.token_type_embeddings = keras.layers.Embedding(
            type_vocab_size, hidden_size, embeddings_initializer=init, dtype=self.dtype_policy,
            name="token_type_embeddings")
        self.layer_norm = LayerNorm(
            epsilon=layer_norm_eps, dtype=self.dtype_policy, name="layer_norm")
        self.dropout = keras.layers.Dropout(dropout_rate, dtype=self.dtype_policy)

    def build(self, word_ids_shape, type_ids_shape=None, position_ids_shape=None):
        self.word_embeddings.build(word_ids_shape)
        self.position_embeddings.build((None,))
        self.token_type_embeddings.build(word_ids_shape)
        self.layer_norm.build(tuple(word_ids_shape) + (self.hidden_size,))
        self.built = True

    def call(self, word_ids, type_ids, position_ids=None, training=None):
        if position_ids is None:
            position_ids = ops.expand_dims(ops.arange(ops.shape(word_ids)[1], dtype="int32"), 0)
        x = (self.word_embeddings(word_ids)
             + self.position_embeddings(position_ids)
             + self.token_type_embeddings(type_ids))
        return self.dropout(self.layer_norm(x), training=training)

    def compute_output_shape(self, word_ids_shape, type_ids_shape=None, position_ids_shape=None):
        return tuple(word_ids_shape) + (self.hidden_size,)

    def get_config(self):
        config = super().get_config()
        config.update(
            vocab_size=self.vocab_size, hidden_size=self.hidden_size,
            max_position_embeddings=self.max_position_embeddings,
            type_vocab_size=self.type_vocab_size, dropout_rate=self.dropout_rate,
            initializer_range=self.initializer_range, layer_norm_eps=self.layer_norm_eps)
        return config
