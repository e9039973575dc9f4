"""XLNet's language-model head: logits through the word-embedding table plus an output bias."""

import keras
from keras import ops

from modeling.heads import tied_logits


@keras.saving.register_keras_serializable(package="bert_garden")
class XLNetLMHead(keras.layers.Layer):
    """`logits = hidden @ word_embedding^T + bias`, the original's `lm_loss` (tied
    decoder, no transform). The table is `embedding_layer`'s, not a copy (not
    serialised: pass it again when rebuilding from a config). Logits are float32.

    Example:
    >>> head = XLNetLMHead(backbone.word_embedding)
    >>> head(backbone(inputs)["query_output"])  # [batch, num_predict, n_token]
    """

    def __init__(self, embedding_layer, **kwargs):
        super().__init__(**kwargs)
        self.embedding_layer = embedding_layer

    def build(self, hidden_shape):
        self.bias = self.add_weight(name="bias", shape=(self.embedding_layer.input_dim,),
                                    initializer="zeros")
        self.built = True

    def call(self, hidden):
        table = ops.cast(self.embedding_layer.embeddings, hidden.dtype)
        logits = tied_logits(hidden, table)
        return ops.cast(logits, "float32") + ops.cast(self.bias, "float32")

    def compute_output_shape(self, hidden_shape):
        return tuple(hidden_shape[:-1]) + (self.embedding_layer.input_dim,)
