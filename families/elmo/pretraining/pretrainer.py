"""`ELMoPretrainer`: the biLM as the original trains it (`bilm/training.py`'s
`LanguageModel`): the token representation, a forward and a backward LSTM
stack over windows of the two streams, each starting from the state the
previous window ended with, dropout, and the shared softmax."""

import keras
from keras import ops

from families.elmo.bilm import BiLM
from families.elmo.pretraining import features as E
from families.elmo.pretraining.softmax import LMSoftmax


class ELMoPretrainer(keras.Model):
    """Per-token losses of the forward and backward language models.

    Inputs (`families.elmo.pretraining.features`, each [batch, unroll_steps]):
    `tokens_characters` [.., max_characters] (the character model; ids + 1, as
    `CharCNN` takes them) or `token_ids` (the token-embedding model; vocabulary
    ids), `next_token_id`, and the same with `_reverse` for the backward LM.
    `state`: per direction, per layer, (c, h) to start from (None: zeros), as
    the task's `initial_state` gives it. `sampled`: per direction, the sampled softmax's
    (candidates, num_tries) (`candidate_sampler`); None: the full softmax.

    Outputs: `forward_token_losses`, `backward_token_losses` float32 [batch,
    unroll_steps], and `lm_state`, each direction's final states to carry on.

    Variables are the biLM's, named as `BiLM`'s (`bilm/...`, so a run converts to
    `lm_weights.hdf5` as any biLM does), and `softmax/W`, `softmax/b`. The
    embedding tables' padding row 0 starts at zero and no input reaches it, so
    it stays so, as the original's tables (which have none) read at inference.
    Dropout (`config.dropout`, 0.1 when the options have none) drops each LSTM
    layer's input and the top layer's output, as the original's.

    Example:
    >>> model = ELMoPretrainer(ELMoConfig.from_preset("elmo_tiny"))
    >>> outputs = model(batch, state=task.initial_state(4))
    >>> outputs["forward_token_losses"].shape
    (4, 20)
    """

    def __init__(self, config, **kwargs):
        super().__init__(**kwargs)
        self.config = config
        dropout = config.hidden_dropout_prob
        self.bilm = BiLM(config, dropout=dropout, dtype=self.dtype_policy, name="bilm")
        self.output_dropout = keras.layers.Dropout(dropout, name="lstm_output_dropout")
        self.softmax = LMSoftmax(config.n_tokens_vocab, dtype="float32", name="softmax")
        self.bilm.build()
        self.softmax.build((None, config.lstm.projection_dim))
        table = self.bilm.tokens.embedding if config.token_embeddings else self.bilm.tokens.char_embed
        table.assign(ops.concatenate([ops.zeros_like(table[:1]), table[1:]]))
        self.built = True

    @property
    def encoder(self):
        """What a checkpoint must hold whole (`Task.initialize`): the biLM."""
        return self.bilm

    def call(self, inputs, state=None, sampled=None, training=None):
        outputs, finals = {}, []
        for d, (name, suffix) in enumerate(E.DIRECTIONS):
            if self.config.token_embeddings:
                x = self.bilm.tokens(inputs[E.TOKEN_IDS + suffix] + 1)
            else:
                x = self.bilm.tokens(inputs[E.TOKENS_CHARACTERS + suffix])
            mask = ops.ones(ops.shape(x)[:2], "int32")
            layers, final = self.bilm.directions[d](
                x, mask, initial_state=None if state is None else state[d], training=training)
            top = self.output_dropout(layers[-1], training=training)
            targets = inputs[E.NEXT_TOKEN_ID + suffix]
            outputs[f"{name}_token_losses"] = self.softmax(top, targets, None if sampled is None else sampled[d])
            finals.append(final)
        outputs["lm_state"] = finals
        return outputs
