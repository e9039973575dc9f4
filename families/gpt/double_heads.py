"""`GPTDoubleHeads`: the LM head and a multiple-choice score on one encoder,
as Hugging Face's `OpenAIGPTDoubleHeadsModel` and the original's ROCStories
model compute them."""

import keras
from keras import ops

from modeling.heads import OUTPUT_DTYPE, MultipleChoiceHead, gather_positions


@keras.saving.register_keras_serializable(package="bert_garden")
class GPTDoubleHeads(keras.Model):
    """Inputs `input_word_ids`, `input_mask` [batch, choices, seq] and optional
    `mc_token_ids` [batch, choices] (where each choice's `_classify_` sits;
    default: its last real token). Outputs `lm_logits` [batch, choices, seq,
    vocab] (the tied head over tokens and special rows) and `mc_logits`
    [batch, choices], both float32.

    The score is the shared `MultipleChoiceHead`, dropout then one [h, 1] dense
    layer, named `choice_scorer` as in the multiple-choice task model, so its
    weights are that model's: Hugging Face's `multiple_choice_head` with
    `summary_type="cls_index"`, `summary_proj_to_labels` (one label) and
    `summary_first_dropout`, the original's `clf` with `clf_pdrop`.

    Example:
    >>> model = GPTDoubleHeads(GPTEncoder(GPTConfig.from_preset("gpt_tiny")))
    >>> model({"input_word_ids": ids, "input_mask": mask})["mc_logits"].shape
    (batch, choices)
    """

    def __init__(self, encoder, **kwargs):
        if isinstance(encoder, dict):
            encoder = keras.saving.deserialize_keras_object(encoder)
        super().__init__(**kwargs)
        self.encoder = encoder
        self.config = encoder.config
        self.choice_scorer = MultipleChoiceHead(encoder.config.clf_pdrop, encoder.config.initializer_range,
                                                dtype=OUTPUT_DTYPE, name="choice_scorer")
        self.choice_scorer.build((None, encoder.config.n_embd))

    def call(self, inputs, training=None):
        shape = ops.shape(inputs["input_word_ids"])
        flat = {k: ops.reshape(inputs[k], (-1, shape[-1])) for k in ("input_word_ids", "input_mask")}
        outputs = self.encoder(flat, training=training)
        if inputs.get("mc_token_ids") is None:
            summary = outputs["pooled_output"]
        else:
            positions = ops.reshape(inputs["mc_token_ids"], (-1, 1))
            summary = gather_positions(outputs["sequence_output"], positions)[:, 0]
        lm_logits = self.encoder.lm_logits(outputs["sequence_output"])
        return {"lm_logits": ops.reshape(lm_logits, (*shape, lm_logits.shape[-1])),
                "mc_logits": ops.reshape(self.choice_scorer(summary, training=training), shape[:-1])}

    def get_config(self):
        return {"encoder": keras.saving.serialize_keras_object(self.encoder), "name": self.name,
                "trainable": self.trainable}

    @classmethod
    def from_config(cls, config):
        return cls(**config)
