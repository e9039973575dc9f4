"""`GPTNextToken`: the scores of the token that follows a text, what GPT's
generation SavedModel (`export.serving_generation`) asks for once per new
token."""

import keras

from families.gpt.encoder import GPTEncoder


class GPTNextToken(keras.Model):
    """`next_token_logits` [batch, n_vocab], float32: the tied LM head on the
    state at each row's last real token (the encoder's `pooled_output`), over
    the BPE pieces only: the special rows mark packing (`_start_`,
    `_delimiter_`, `_classify_`) and are never generated. Its weights are the
    encoder's. Equals Hugging Face's `OpenAIGPTLMHeadModel` logits at that
    position for a model without special rows.

    Example:
    >>> model = GPTNextToken(GPTConfig.from_preset("gpt_tiny"))
    >>> model({"input_word_ids": ids, "input_mask": mask})["next_token_logits"].shape
    (batch, 97)
    """

    def __init__(self, config, **kwargs):
        super().__init__(**kwargs)
        self.config = config
        self.encoder = GPTEncoder(config, dtype=self.dtype_policy, name="encoder")

    def call(self, inputs, training=None):
        last = self.encoder(inputs, training=training)["pooled_output"]
        logits = self.encoder.lm_logits(last[:, None, :])[:, 0]
        return {"next_token_logits": logits[:, :self.config.n_vocab]}
