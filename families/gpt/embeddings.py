"""GPT's input embeddings: BPE tokens, the special rows fine-tuning adds, and
learned positions, summed and dropped out (no segments, no LayerNorm)."""

import keras
from keras import ops


class GPTEmbeddings(keras.layers.Layer):
    """Token rows `[n_vocab, h]`, special rows `[n_special, h]` (ids from
    `n_vocab` on) and position rows `[n_ctx, h]`.

    The original keeps tokens, specials and positions in one joint matrix `we`;
    here they are three tables, so a pretrained release (which has no special
    rows) loads into the first and the last alone. All three start as the
    original's: normal with stddev `initializer_range`.

    Example:
    >>> layer = GPTEmbeddings(n_vocab=40478, n_special=3, n_ctx=512, hidden_size=768)
    >>> layer(word_ids, position_ids).shape  # [batch, seq, 768]
    """

    def __init__(self, n_vocab, n_special, n_ctx, hidden_size, dropout_rate=0.1,
                 initializer_range=0.02, **kwargs):
        super().__init__(**kwargs)
        self.n_vocab = n_vocab
        self.n_special = n_special
        self.n_ctx = n_ctx
        self.hidden_size = hidden_size
        self.dropout_rate = dropout_rate
        self.initializer_range = initializer_range
        table = dict(output_dim=hidden_size, dtype=self.dtype_policy,
                     embeddings_initializer=keras.initializers.RandomNormal(stddev=initializer_range))
        self.word_embeddings = keras.layers.Embedding(n_vocab, name="word_embeddings", **table)
        self.special_embeddings = (keras.layers.Embedding(n_special, name="special_embeddings", **table)
                                   if n_special else None)
        self.position_embeddings = keras.layers.Embedding(n_ctx, name="position_embeddings", **table)
        self.dropout = keras.layers.Dropout(dropout_rate, dtype=self.dtype_policy)

    def build(self, word_ids_shape, position_ids_shape=None):
        for table in self.tables():
            table.build(word_ids_shape)
        self.built = True

    def tables(self):
        """The embedding layers in the original's joint order: tokens, specials, positions."""
        return [t for t in (self.word_embeddings, self.special_embeddings, self.position_embeddings) if t]

    def call(self, word_ids, position_ids, training=None):
        x = self.word_embeddings(ops.minimum(word_ids, self.n_vocab - 1))
        if self.special_embeddings is not None:
            special = self.special_embeddings(ops.clip(word_ids - self.n_vocab, 0, self.n_special - 1))
            x = ops.where(ops.expand_dims(word_ids >= self.n_vocab, -1), special, x)
        x = x + self.position_embeddings(position_ids)
        return self.dropout(x, training=training)

    def compute_output_shape(self, word_ids_shape, position_ids_shape=None):
        return tuple(word_ids_shape) + (self.hidden_size,)

    def get_config(self):
        config = super().get_config()
        config.update(n_vocab=self.n_vocab, n_special=self.n_special, n_ctx=self.n_ctx,
                      hidden_size=self.hidden_size, dropout_rate=self.dropout_rate,
                      initializer_range=self.initializer_range)
        return config
