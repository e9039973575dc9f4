"""The biLM (Peters et al. 2018): token representations, a forward and a
backward LSTM stack over each sentence framed by begin/end-of-sentence tokens,
and its layers with those two tokens taken out again, as the original's
`BidirectionalLanguageModel` returns them."""

import keras
import numpy as np
from keras import ops

from families.elmo.char_cnn import CharCNN
from families.elmo.characters import bos_char_ids, eos_char_ids
from families.elmo.config import ELMoConfig
from families.elmo.lstm_stack import LSTMStack
from families.elmo.token_embedding import TokenEmbedding


@keras.saving.register_keras_serializable(package="bert_garden")
class BiLM(keras.layers.Layer):
    """(token inputs [batch, seq(, chars)], mask [batch, seq]) -> the biLM's
    layers, each [batch, seq, 2 * projection_dim], zero on padding: layer 0 is
    the token representation twice (for both directions), then each LSTM layer's
    forward and backward outputs side by side.

    Inputs hold the sentence's tokens only, real ones first: the BOS and EOS
    tokens are put around each row's real tokens here (the character variant
    makes them from their character ids; the token variant needs
    `sentence_boundary_ids`, the vocabulary indices of `<S>` and `</S>`). The
    backward stack reads each row's framed tokens reversed.
    `stateful` and `dropout` (the stacks' input dropout, for pretraining) as
    in `LSTMStack`.
    """

    def __init__(self, config, stateful=False, max_batch_size=128, sentence_boundary_ids=None, dropout=0.0,
                 **kwargs):
        super().__init__(**kwargs)
        self.config = config if isinstance(config, ELMoConfig) else ELMoConfig.from_dict(config)
        self.stateful, self.max_batch_size, self.dropout = stateful, max_batch_size, dropout
        proj = self.config.lstm.projection_dim
        if self.config.token_embeddings:
            self.sentence_boundary_ids = sentence_boundary_ids and [int(i) for i in sentence_boundary_ids]
            self.tokens = TokenEmbedding(self.config.n_tokens_vocab, proj, dtype=self.dtype_policy,
                                         name="token_embedding")
            self._boundaries = sentence_boundary_ids and np.array(
                [[i + 1 for i in self.sentence_boundary_ids]], np.int32)
        else:
            self.sentence_boundary_ids = None
            self.tokens = CharCNN(self.config.char_cnn, proj, dtype=self.dtype_policy, name="char_cnn")
            self._boundaries = np.array([[bos_char_ids(self.config.char_cnn.max_characters_per_token),
                                          eos_char_ids(self.config.char_cnn.max_characters_per_token)]],
                                        np.int32)
        self.directions = [LSTMStack(self.config.lstm, stateful, max_batch_size, dropout,
                                     dtype=self.dtype_policy, name=f"RNN_{d}")
                           for d in range(2)]

    def build(self, input_shape=None):
        self.tokens.build(None)
        for stack in self.directions:
            stack.build((None, None, self.config.lstm.projection_dim))

    @property
    def state_variables(self):
        """The stacks' `state_variables` (none unless stateful)."""
        return [variable for stack in self.directions for variable in stack.state_variables]

    def reset_states(self):
        for stack in self.directions:
            stack.reset_states()

    def call(self, token_inputs, mask):
        if self._boundaries is None:
            raise ValueError("the token-embedding variant needs sentence_boundary_ids "
                             "(the vocabulary indices of <S> and </S>) to run")
        mask = ops.cast(mask, "int32")
        lengths = ops.sum(mask, axis=1)
        e = self.tokens(token_inputs)
        real = ops.cast(ops.expand_dims(mask, -1), e.dtype)
        e = e * real
        bos, eos = ops.unstack(self.tokens(ops.convert_to_tensor(self._boundaries))[0], 2)
        batch, seq, width = ops.shape(e)
        zero = ops.zeros((batch, 1, width), e.dtype)  # not `e[:, :1]`: a batch may have no tokens
        framed = ops.concatenate([zero + bos, e, zero], axis=1)
        framed = framed + ops.expand_dims(ops.one_hot(lengths + 1, seq + 2, dtype=e.dtype), -1) * eos
        framed_mask = ops.arange(seq + 2)[None, :] < ops.expand_dims(lengths + 2, 1)
        order = _reversal(lengths + 2, seq + 2)
        forward, _ = self.directions[0](framed, framed_mask)
        backward, _ = self.directions[1](_take_steps(framed, order), framed_mask)
        layers = [ops.concatenate([e, e], axis=-1)]
        for f, b in zip(forward, backward):
            layers.append(ops.concatenate([f, _take_steps(b, order)], axis=-1)[:, 1:seq + 1] * real)
        return layers

    def get_config(self):
        return {**super().get_config(), "config": self.config.to_dict(), "stateful": self.stateful,
                "max_batch_size": self.max_batch_size, "sentence_boundary_ids": self.sentence_boundary_ids,
                "dropout": self.dropout}


def _reversal(lengths, steps):
    """int [batch, steps]: the step each step takes under the original's
    `reverse_sequence` by `lengths` (the first `lengths` reversed, the rest kept)."""
    t = ops.arange(steps)[None, :]
    n = ops.expand_dims(lengths, 1)
    return ops.where(t < n, n - 1 - t, t)


def _take_steps(x, order):
    return ops.take_along_axis(x, ops.expand_dims(order, -1), axis=1)
