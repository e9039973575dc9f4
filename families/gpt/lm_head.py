"""GPT's language-model head, tied to the input embeddings, in the two forms
the references use."""

import keras
from keras import ops

from modeling.heads import tied_logits


@keras.saving.register_keras_serializable(package="bert_garden")
class GPTLMHead(keras.layers.Layer):
    """Float32 logits `hidden @ table^T`, no bias, over the rows of `embeddings`
    (a `families.gpt.embeddings.GPTEmbeddings`; shared, not copied: pass it
    again when rebuilding from a config).

    `joint=False` scores the word rows, tokens then specials: Hugging Face's
    `lm_head`, whose `tokens_embed` holds the special rows after a resize.
    `joint=True` scores every row of the original's joint embedding `we`:
    tokens, specials and the first `seq` positions, where `seq` is the input's
    length (the original pads every input of a run to its `n_ctx` and cuts
    the position rows of `we` to that many), as its fine-tuning LM loss does.

    Example:
    >>> head = GPTLMHead(encoder.embeddings, joint=True)
    >>> head(sequence_output).shape  # [batch, seq, n_vocab + n_special + seq]
    """

    def __init__(self, embeddings, joint=False, **kwargs):
        super().__init__(**kwargs)
        self.embeddings = embeddings
        self.joint = joint

    def call(self, hidden):
        tables = [t.embeddings for t in self.embeddings.tables()]
        if not self.joint:
            tables = tables[:-1]
        table = tables[0] if len(tables) == 1 else ops.concatenate(tables, axis=0)
        logits = ops.cast(tied_logits(hidden, ops.cast(table, hidden.dtype)), "float32")
        if self.joint:  # all n_ctx position rows are scored, the first `seq` kept: static shapes
            logits = logits[..., :self.embeddings.n_vocab + self.embeddings.n_special + ops.shape(hidden)[1]]
        return logits

    def compute_output_shape(self, hidden_shape):
        rows = self.embeddings.n_vocab + self.embeddings.n_special
        if self.joint:
            rows = None if hidden_shape[1] is None else rows + hidden_shape[1]
        return tuple(hidden_shape[:-1]) + (rows,)

    def get_config(self):
        config = super().get_config()
        config.update(joint=self.joint)
        return config
