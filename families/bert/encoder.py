"""`BertEncoder`: the bidirectional Transformer encoder of Devlin et al. (2018)."""

import keras
from keras import ops

from families.bert.config import BertConfig
from modeling.dense import Dense
from families.bert.embeddings import BertEmbeddings
from modeling.heads import gather_positions
from modeling.initializers import bert_initializer
from modeling.masks import (attention_mask_from_input_mask, last_token_of_first_sequence,
                            position_ids_from_input_mask)
from modeling.transformer import TransformerLayer


@keras.saving.register_keras_serializable(package="bert_garden")
class BertEncoder(keras.Model):
    """BERT encoder as a functional Keras model.

    Inputs follow the TF Hub BERT convention: a dict of int32 `input_word_ids`,
    `input_mask` (1 for real tokens) and `input_type_ids`, each [batch, seq].
    A row may pack several sequences, `input_mask` numbering them 1, 2, ...
    (`modeling.masks`); each is then encoded as if alone.
    Outputs: `sequence_output` [batch, seq, hidden], `pooled_output`
    [batch, hidden] (tanh dense on [CLS]; for a packed row, on its first
    sequence's) and `encoder_outputs`, the list of every layer's output.

    `config.causal_attention` gives the paper's left-to-right ablation: each
    token attends only to itself and earlier tokens, in pretraining and
    fine-tuning. [CLS] then sees only itself, so `pooled_output` is taken at
    the last real token (of the first sequence) instead, the one that has seen
    the whole sequence. The `causal_attention` argument, when given, overrides
    the config's (Keras configs of earlier versions carry it there).

    `config.fine_tuning_bilstm` adds the paper's "+ BiLSTM": a BiLSTM (half the
    hidden size each way, padding masked) over the last layer gives
    `sequence_output` and the pooled vector (taken as above); `encoder_outputs`
    stay the Transformer layers'. Its weights are `fine_tuning_weights`: a
    pretrained checkpoint has none.

    Example:
    >>> encoder = BertEncoder(BertConfig.from_preset("bert_uncased_L-2_H-128_A-2"))
    >>> outputs = encoder({"input_word_ids": ids, "input_mask": mask, "input_type_ids": types})
    >>> outputs["pooled_output"].shape
    (batch, 128)
    """

    def __init__(self, config, causal_attention=None, dtype=None, **kwargs):
        if isinstance(config, dict):
            config = BertConfig.from_dict(config)
        if causal_attention is not None:
            config = config.replace(causal_attention=bool(causal_attention))
        # === Layers ===
        embeddings = BertEmbeddings(
            config.vocab_size, config.hidden_size, config.max_position_embeddings,
            config.type_vocab_size, config.hidden_dropout_prob, config.initializer_range,
            config.layer_norm_eps, dtype=dtype, name="embeddings")
        transformer_layers = [
            TransformerLayer(
                config.num_attention_heads, config.hidden_size, config.intermediate_size,
                config.hidden_act, config.hidden_dropout_prob,
                config.attention_probs_dropout_prob, config.initializer_range,
                config.layer_norm_eps, dtype=dtype, name=f"transformer_layer_{i}")
            for i in range(config.num_hidden_layers)
        ]
        pooler = Dense(
            config.hidden_size, activation="tanh",
            kernel_initializer=bert_initializer(config.initializer_range), dtype=dtype,
            name="pooler")
        bilstm = (keras.layers.Bidirectional(
            keras.layers.LSTM(config.hidden_size // 2, return_sequences=True, dtype=dtype, name="lstm"),
            dtype=dtype, name="fine_tuning_bilstm") if config.fine_tuning_bilstm else None)

        # === Functional model ===
        word_ids = keras.Input(shape=(None,), dtype="int32", name="input_word_ids")
        input_mask = keras.Input(shape=(None,), dtype="int32", name="input_mask")
        type_ids = keras.Input(shape=(None,), dtype="int32", name="input_type_ids")
        attention_mask = attention_mask_from_input_mask(input_mask, causal=config.causal_attention)
        x = embeddings(word_ids, type_ids, position_ids_from_input_mask(input_mask))
        encoder_outputs = []
        for layer in transformer_layers:
            x = layer(x, attention_mask)
            encoder_outputs.append(x)
        if bilstm is not None:
            x = bilstm(x, mask=ops.cast(input_mask, "bool"))
        if config.causal_attention:
            pooled = pooler(gather_positions(x, last_token_of_first_sequence(input_mask))[:, 0, :])
        else:
            pooled = pooler(x[:, 0, :])
        super().__init__(
            inputs={"input_word_ids": word_ids, "input_mask": input_mask,
                    "input_type_ids": type_ids},
            outputs={"sequence_output": x, "pooled_output": pooled,
                     "encoder_outputs": encoder_outputs},
            dtype=dtype, **kwargs)

        # === Config ===
        self.config = config
        self.embeddings = embeddings
        self.transformer_layers = transformer_layers
        self.pooler = pooler
        self.bilstm = bilstm

    @property
    def causal_attention(self):
        return self.config.causal_attention

    @property
    def fine_tuning_weights(self):
        """The BiLSTM's weights (`fine_tuning_bilstm`), which no pretrained checkpoint holds."""
        return list(self.bilstm.weights) if self.bilstm is not None else []

    @property
    def word_embeddings(self):
        """The [vocab, hidden] table the masked-LM decoder is tied to."""
        return self.embeddings.word_embeddings.embeddings

    def get_config(self):
        return {"config": self.config.to_dict(), "name": self.name, "trainable": self.trainable}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def dummy_inputs(batch_size=2, seq_length=8):
    """Small valid inputs to build or trace an encoder."""
    return {
        "input_word_ids": ops.ones((batch_size, seq_length), dtype="int32"),
        "input_mask": ops.ones((batch_size, seq_length), dtype="int32"),
        "input_type_ids": ops.zeros((batch_size, seq_length), dtype="int32"),
    }
