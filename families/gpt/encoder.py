"""`GPTEncoder`: OpenAI GPT's left-to-right Transformer behind the encoder
interface of `modeling/encoder_interface.py`, with its tied LM head."""

import keras

from families.gpt.config import ACTIVATIONS, GPTConfig
from families.gpt.embeddings import GPTEmbeddings
from families.gpt.lm_head import GPTLMHead
from families.gpt.lm_loss import next_token_loss
from modeling.heads import gather_positions
from modeling.masks import (attention_mask_from_input_mask, last_token_of_first_sequence,
                            position_ids_from_input_mask)
from modeling.transformer import TransformerLayer

INPUTS = ("input_word_ids", "input_mask")


@keras.saving.register_keras_serializable(package="bert_garden")
class GPTEncoder(keras.Model):
    """GPT as a functional Keras model.

    Inputs: int32 [batch, seq] `input_word_ids` (BPE ids, then the special rows
    from `config.n_vocab` on) and `input_mask` (1 on real tokens, padding on the
    right); GPT has no segment ids. Outputs: `sequence_output` [batch, seq, h],
    `pooled_output` [batch, h], the state at the last real token (where the
    packing puts `_classify_`, the only token that has seen the whole input;
    no projection, as the original's classifier reads it), and
    `encoder_outputs`, every block's output.

    The blocks are the shared post-LayerNorm Transformer layer under a causal
    mask, with tanh GELU and LayerNorm epsilon 1e-5; the original's fused
    `c_attn` projection is held as its query, key and value thirds. Token and
    position embeddings are summed, dropped out and fed in directly.

    Example:
    >>> encoder = GPTEncoder(GPTConfig.from_preset("gpt_tiny"))
    >>> outputs = encoder({"input_word_ids": ids, "input_mask": mask})
    >>> encoder.lm_logits(outputs["sequence_output"]).shape
    (batch, seq, 100)
    """

    def __init__(self, config, dtype=None, **kwargs):
        if isinstance(config, dict):
            config = GPTConfig.from_dict(config)
        # === Layers ===
        embeddings = GPTEmbeddings(
            config.n_vocab, config.n_special, config.n_ctx, config.n_embd, config.embd_pdrop,
            config.initializer_range, dtype=dtype, name="embeddings")
        blocks = [
            TransformerLayer(
                config.n_head, config.n_embd, config.intermediate_size, ACTIVATIONS[config.afn],
                config.resid_pdrop, config.attn_pdrop, config.initializer_range,
                config.layer_norm_epsilon, dtype=dtype, name=f"transformer_layer_{i}")
            for i in range(config.n_layer)
        ]

        # === Functional model ===
        inputs = {name: keras.Input(shape=(None,), dtype="int32", name=name) for name in INPUTS}
        input_mask = inputs["input_mask"]
        attention_mask = attention_mask_from_input_mask(input_mask, causal=True)
        x = embeddings(inputs["input_word_ids"], position_ids_from_input_mask(input_mask))
        encoder_outputs = []
        for block in blocks:
            x = block(x, attention_mask)
            encoder_outputs.append(x)
        pooled = gather_positions(x, last_token_of_first_sequence(input_mask))[:, 0, :]
        super().__init__(
            inputs=inputs,
            outputs={"sequence_output": x, "pooled_output": pooled, "encoder_outputs": encoder_outputs},
            dtype=dtype, **kwargs)

        # === Config ===
        self.config = config
        self.embeddings = embeddings
        self.transformer_layers = blocks
        self.lm_head = GPTLMHead(embeddings, joint=False, dtype=dtype, name="lm_head")
        self.joint_lm_head = GPTLMHead(embeddings, joint=True, dtype=dtype, name="joint_lm_head")

    @property
    def fine_tuning_weights(self):
        """The special rows: the original creates them for fine-tuning (normal,
        stddev 0.02), so a pretrained release does not hold them."""
        return self.embeddings.special_embeddings.weights if self.embeddings.special_embeddings else []

    def lm_logits(self, sequence_output, joint=False):
        """Float32 next-token logits: over the tokens and special rows (Hugging
        Face's head), or with `joint` over the original's whole `we`
        (`families.gpt.lm_head.GPTLMHead`)."""
        return (self.joint_lm_head if joint else self.lm_head)(sequence_output)

    def auxiliary_loss(self, inputs, outputs):
        """Float32 [batch]: the language-model loss of each input, which the
        original's fine-tuning adds to the task's times `config.lm_coef`. It is
        the original's: the softmax over every row of the joint embedding
        (`lm_logits(..., joint=True)`), the mean over the real tokens after the
        first (`families.gpt.lm_loss.next_token_loss`)."""
        logits = self.lm_logits(outputs["sequence_output"], joint=True)
        return next_token_loss(logits, inputs["input_word_ids"], inputs["input_mask"])

    def get_config(self):
        return {"config": self.config.to_dict(), "name": self.name, "trainable": self.trainable}

    @classmethod
    def from_config(cls, config):
        return cls(**config)
