"""ELMo as a TensorFlow 2 TF Hub module with the published module's outputs
(google/elmo on TF Hub, a TF1 module), so code written for it ports:

    elmo = hub.KerasLayer(path, trainable=True, output_key="elmo")   # tf-keras
    vectors = elmo(tf.constant(["The cat sat .", "Hello , world !"]))  # [batch, words, 2 * proj]

    layer = keras.layers.TFSMLayer(path, call_endpoint="default")    # Keras 3
    outputs = layer(tf.constant(["The cat sat ."]))                  # dict below
    tokens = keras.layers.TFSMLayer(path, call_endpoint="tokens")
    outputs = tokens({"tokens": tf.constant([["The", "cat", ""]]),
                      "sequence_len": tf.constant([2])})

Inputs, as the published module's two signatures:
- `default`: `strings` [batch], raw sentences split into words as
  `characters.split_words` splits them (whitespace, each punctuation character
  a word; the published module split on spaces only);
- `tokens`: `tokens` string [batch, max_length] (each one word, padded with
  anything) and `sequence_len` int32 [batch].

Outputs: `word_emb` [batch, words, projection_dim] (the character CNN's token
representation), `lstm_outputs1`, `lstm_outputs2` (one per LSTM layer)
[batch, words, 2 * projection_dim], `elmo` [batch, words, 2 * projection_dim]
(the learned scalar mix of the three, `ScalarMix`: its weights and gamma are
the module's trainable variables, the biLM's are not, as the published
module) and `default` [batch, 2 * projection_dim] (the mean of `elmo` over each
sentence's words; zero for a sentence without any). Padding positions are
zero. Every sentence starts from a zero LSTM state.

The root is an AutoTrackable with `variables`, `trainable_variables`,
`regularization_losses` and `__call__(inputs, training)` (inputs: strings
[batch], or the dict {tokens, sequence_len}), which `hub.KerasLayer` needs;
`default` and `tokens` are also attributes taking one input each (a
`TFSMLayer` endpoint), and signatures (`default`, `tokens`, and
`serving_default` = `default`) for TF Serving and `saved_model_cli`.
"""

import tensorflow as tf

from export.saved_model_io import save_atomically
from families.elmo.scalar_mix import ScalarMix
from families.elmo.text_side import GraphWordTokenizer

_STRINGS = tf.TensorSpec([None], tf.string, name="strings")
_TOKENS = {"tokens": tf.TensorSpec([None, None], tf.string, name="tokens"),
           "sequence_len": tf.TensorSpec([None], tf.int32, name="sequence_len")}


class ELMoHubModule(tf.__internal__.tracking.AutoTrackable):
    """The module object `save_hub_module` writes, around a zero-state
    `ELMoEncoder` (float32); callable in process too.

    Example:
    >>> module = ELMoHubModule(ELMoEncoder(ELMoConfig.from_preset("elmo_tiny")))
    >>> module(tf.constant(["Hello , world !"]))["elmo"].shape
    TensorShape([1, 4, 16])
    """

    def __init__(self, encoder):
        super().__init__()
        config = encoder.config
        self._layers = len(encoder.output["encoder_outputs"])
        self._projection = config.lstm.projection_dim
        self._max_characters = config.char_cnn.max_characters_per_token
        self._tokenizer = GraphWordTokenizer(self._max_characters)
        mix = ScalarMix(name="elmo_mix")
        mix.build([(None, None, config.hidden_size)] * self._layers)
        self.variables = [v.value for v in encoder.variables + mix.variables]
        self.trainable_variables = [v.value for v in mix.trainable_variables]
        self.regularization_losses = []
        self._encoder, self._mix = encoder, mix

        # Every endpoint calls this one function: the biLM is traced once, not once per endpoint.
        self._encode = tf.function(self._encoded, input_signature=[
            tf.TensorSpec([None, None, self._max_characters], tf.int32), tf.TensorSpec([None, None], tf.int32)])
        call = tf.function(self._call)
        for spec in (_STRINGS, _TOKENS):
            for training in (False, True):
                call.get_concrete_function(spec, training)
        self.__call__ = call
        self.default = tf.function(self._from_strings, input_signature=[_STRINGS])
        self.tokens = tf.function(self._from_tokens, input_signature=[_TOKENS])

    def __call__(self, inputs, training=False):
        # `obj(...)` looks `__call__` up on the class; the one saved is the instance's.
        return self.__dict__["__call__"](inputs, training)

    def _call(self, inputs, training=False):
        del training  # neither the biLM nor the mix has dropout
        return self._from_tokens(inputs) if isinstance(inputs, dict) else self._from_strings(inputs)

    def _from_strings(self, strings):
        ids = self._tokenizer.tokenize(strings)
        char_ids = ids.to_tensor(0, shape=[None, None, self._max_characters])
        mask = tf.sequence_mask(ids.row_lengths(), tf.shape(char_ids, out_type=tf.int64)[1], tf.int32)
        return self._encode(char_ids, mask)

    def _from_tokens(self, inputs):
        tokens = inputs["tokens"]
        shape = tf.shape(tokens)
        lengths = tf.clip_by_value(tf.cast(inputs["sequence_len"], tf.int32), 0, shape[1])
        mask = tf.sequence_mask(lengths, shape[1], tf.int32)
        char_ids = self._tokenizer.characters.word_char_ids(tf.reshape(tokens, [-1]))
        char_ids = tf.reshape(char_ids, tf.concat([shape, [self._max_characters]], 0))
        return self._encode(char_ids * mask[:, :, None], mask)

    def _encoded(self, char_ids, mask):
        layers = self._encoder({"input_char_ids": char_ids, "input_mask": mask},
                               training=False)["encoder_outputs"]
        outputs = {"word_emb": layers[0][..., :self._projection]}
        outputs.update({f"lstm_outputs{i}": layer for i, layer in enumerate(layers[1:], 1)})
        real = tf.cast(mask, layers[0].dtype)[..., None]
        elmo = self._mix(layers, mask) * real
        outputs["elmo"] = elmo
        outputs["default"] = tf.reduce_sum(elmo, 1) / tf.maximum(tf.reduce_sum(real, 1), 1.0)
        return outputs

    def signatures(self):
        """The serving signatures: `default` (also `serving_default`) and `tokens`."""
        tokens = tf.function(lambda tokens, sequence_len: self._from_tokens(
            {"tokens": tokens, "sequence_len": sequence_len}), input_signature=list(_TOKENS.values()))
        return {"default": self.default, "serving_default": self.default, "tokens": tokens}


def save_hub_module(export_dir, encoder):
    """Writes the ELMo module of `encoder` (an `ELMoEncoder` with its weights,
    zero state) to `export_dir`; returns the path."""
    if encoder.config.token_embeddings:
        raise ValueError("the TF Hub ELMo module reads characters, as the published one: a "
                         "token-embedding biLM (an options.json without char_cnn) has none")
    module = ELMoHubModule(encoder)
    return save_atomically(module, export_dir, signatures=module.signatures())
