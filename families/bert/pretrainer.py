"""`BertPretrainer`: encoder + masked-LM head (+ next-sentence head)."""

import keras

from modeling.heads import MaskedLMHead, NextSentenceHead, gather_positions

OBJECTIVES = ("mlm_nsp", "mlm", "ltr")


@keras.saving.register_keras_serializable(package="bert_garden")
class BertPretrainer(keras.Model):
    """Pretraining model for the paper's objective and its ablations.

    - `mlm_nsp`: masked LM + next-sentence prediction (BERT).
    - `mlm`: masked LM only (the No-NSP ablation).
    - `ltr`: left-to-right LM (needs an encoder built with `causal_attention=True`);
      the "masked" positions are the ones whose next token is predicted.

    Inputs: the encoder's inputs plus `masked_lm_positions` [batch, predictions].
    Outputs: `mlm_logits` [batch, predictions, vocab] and, for `mlm_nsp`,
    `nsp_logits` [batch, 2]; both float32 whatever the compute dtype.

    `packed=True` takes rows that pack several sequences (`families.bert.pretraining.sequence_packing`):
    one more input, `next_sentence_positions` [batch, sequences], the [CLS]
    position of each, and `nsp_logits` [batch, sequences, 2] from each one's
    pooled [CLS] (the encoder's own pooler).

    Example:
    >>> pretrainer = BertPretrainer(BertEncoder(config))
    >>> pretrainer({**encoder_inputs, "masked_lm_positions": positions})["mlm_logits"]
    """

    def __init__(self, encoder, objective="mlm_nsp", packed=False, **kwargs):
        if objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
        if encoder.config.fine_tuning_bilstm:
            raise ValueError("fine_tuning_bilstm: the BiLSTM is added at fine-tuning; a pretrainer "
                             "(and a checkpoint format holding its heads) has no place for it")
        if (objective == "ltr") != encoder.causal_attention:
            raise ValueError(
                f"objective {objective!r} needs an encoder with causal_attention="
                f"{objective == 'ltr'}")
        config = encoder.config
        # === Layers ===
        mlm_head = MaskedLMHead(
            encoder.embeddings.word_embeddings, config.hidden_act, config.initializer_range,
            config.layer_norm_eps, dtype=encoder.dtype_policy, name="masked_lm")
        nsp_head = (NextSentenceHead(config.initializer_range, dtype=encoder.dtype_policy,
                                     name="next_sentence")
                    if objective == "mlm_nsp" else None)

        # === Functional model ===
        names = ["input_word_ids", "input_mask", "input_type_ids", "masked_lm_positions"]
        if packed and nsp_head is not None:
            names.append("next_sentence_positions")
        inputs = {name: keras.Input(shape=(None,), dtype="int32", name=name) for name in names}
        encoded = encoder({k: inputs[k] for k in ("input_word_ids", "input_mask", "input_type_ids")})
        outputs = {"mlm_logits": mlm_head(encoded["sequence_output"], inputs["masked_lm_positions"])}
        if nsp_head is not None and packed:
            first_tokens = gather_positions(
                encoded["sequence_output"], inputs["next_sentence_positions"])
            outputs["nsp_logits"] = nsp_head(encoder.pooler(first_tokens))
        elif nsp_head is not None:
            outputs["nsp_logits"] = nsp_head(encoded["pooled_output"])
        super().__init__(inputs=inputs, outputs=outputs, **kwargs)

        # === Config ===
        self.encoder = encoder
        self.objective = objective
        self.packed = packed
        self.masked_lm = mlm_head
        self.next_sentence = nsp_head

    def get_config(self):
        return {"encoder": keras.saving.serialize_keras_object(self.encoder),
                "objective": self.objective, "packed": self.packed, "name": self.name,
                "trainable": self.trainable}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["encoder"] = keras.saving.deserialize_keras_object(config["encoder"])
        return cls(**config)
