"""`GPTLanguageModel`: the encoder and its tied LM head, for left-to-right
language-model pretraining."""

import keras

from families.gpt.config import GPTConfig
from families.gpt.encoder import GPTEncoder


@keras.saving.register_keras_serializable(package="bert_garden")
class GPTLanguageModel(keras.Model):
    """`lm_logits` [batch, seq, vocab], float32, at every position: the next
    token's scores (`families.gpt.lm_loss.next_token_loss` reads them). `joint`
    scores the original's whole joint embedding, positions included, instead of
    the tokens and special rows (`families.gpt.lm_head.GPTLMHead`). The LM head
    has no weights of its own, so this model's weights are the encoder's.

    Example:
    >>> model = GPTLanguageModel(GPTConfig.from_preset("gpt_tiny").replace(n_special=0))
    >>> model({"input_word_ids": ids, "input_mask": mask})["lm_logits"].shape
    (batch, seq, 97)
    """

    def __init__(self, config, joint=False, **kwargs):
        if isinstance(config, dict):
            config = GPTConfig.from_dict(config)
        super().__init__(**kwargs)
        self.config = config
        self.joint = joint
        self.encoder = GPTEncoder(config, dtype=self.dtype_policy, name="encoder")

    def call(self, inputs, training=None):
        outputs = self.encoder(inputs, training=training)
        return {"lm_logits": self.encoder.lm_logits(outputs["sequence_output"], joint=self.joint)}

    def get_config(self):
        return {"config": self.config.to_dict(), "joint": self.joint, "name": self.name,
                "trainable": self.trainable}

    @classmethod
    def from_config(cls, config):
        return cls(**config)
