"""`ELMoEncoder`: the biLM behind the encoder interface of
`modeling/encoder_interface.py`, with ELMo's own inputs: characters and a
mask, no type ids, no position limit."""

import keras
from keras import ops

from families.elmo.bilm import BiLM
from families.elmo.config import ELMoConfig


@keras.saving.register_keras_serializable(package="bert_garden")
class ELMoEncoder(keras.Model):
    """ELMo's biLM as an encoder.

    Inputs: `input_char_ids` int32 [batch, seq, max_characters_per_token]
    (`characters.batch_char_ids`; the token-embedding variant takes
    `input_word_ids` int32 [batch, seq], vocabulary index + 1, instead) and
    `input_mask` int32 [batch, seq], 1 on real tokens, which come first. No
    BOS/EOS in the inputs: the biLM frames each sentence itself and takes them
    out of its outputs, so output positions are the input tokens.

    Outputs: `encoder_outputs`, the biLM's layers [token representation twice,
    LSTM layer 1, LSTM layer 2], each [batch, seq, 2 * projection_dim] and zero
    on padding; `sequence_output`, the top layer; `pooled_output`, the top
    layer's mean over real tokens (zero for an empty row). Tasks combine the
    layers with a learned `ScalarMix` (the paper's ELMo vector), not
    `sequence_output` alone.

    `stateful` (default False, every sentence from a zero state, as tasks and
    exports run) carries LSTM states across calls as the original `bilm` does;
    see `lstm_stack.LSTMStack`.

    Example:
    >>> encoder = ELMoEncoder(ELMoConfig.from_preset("elmo_tiny"))
    >>> ids, mask = characters.batch_char_ids([["Hello", ",", "world"]])
    >>> encoder({"input_char_ids": ids, "input_mask": mask})["sequence_output"].shape
    (1, 3, 16)
    """

    def __init__(self, config, stateful=False, max_batch_size=128, sentence_boundary_ids=None,
                 dtype=None, **kwargs):
        if isinstance(config, dict):
            config = ELMoConfig.from_dict(config)
        # === Layers ===
        bilm = BiLM(config, stateful, max_batch_size, sentence_boundary_ids, dtype=dtype, name="bilm")

        # === Functional model ===
        if config.token_embeddings:
            ids_name, ids = "input_word_ids", keras.Input(shape=(None,), dtype="int32", name="input_word_ids")
        else:
            ids_name = "input_char_ids"
            ids = keras.Input(shape=(None, config.char_cnn.max_characters_per_token), dtype="int32",
                              name="input_char_ids")
        input_mask = keras.Input(shape=(None,), dtype="int32", name="input_mask")
        layers = bilm(ids, input_mask)
        top = layers[-1]
        real = ops.cast(ops.expand_dims(input_mask, -1), top.dtype)
        pooled = ops.sum(top * real, axis=1) / ops.maximum(ops.sum(real, axis=1), 1.0)
        super().__init__(inputs={ids_name: ids, "input_mask": input_mask},
                         outputs={"sequence_output": top, "pooled_output": pooled,
                                  "encoder_outputs": layers},
                         dtype=dtype, **kwargs)

        # === Config ===
        self.config = config
        self.bilm = bilm
        self.stateful, self.max_batch_size = stateful, max_batch_size
        self.sentence_boundary_ids = sentence_boundary_ids

    @property
    def state_variables(self):
        """The variables a stateful encoder keeps its LSTM states in (none
        unless stateful): not weights, which checkpoints leave out."""
        return self.bilm.state_variables

    def reset_states(self):
        """Zeroes the LSTM states a stateful encoder carries."""
        self.bilm.reset_states()

    def get_config(self):
        return {"config": self.config.to_dict(), "stateful": self.stateful,
                "max_batch_size": self.max_batch_size, "sentence_boundary_ids": self.sentence_boundary_ids,
                "name": self.name, "trainable": self.trainable}

    @classmethod
    def from_config(cls, config):
        return cls(**config)
