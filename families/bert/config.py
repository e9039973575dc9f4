"""`BertConfig`: the original `bert_config.json`, validated, plus named presets."""

import dataclasses

from modeling.json_config import ConfigError, JsonConfig

_ACTIVATIONS = ("gelu", "gelu_new", "gelu_tanh", "relu", "tanh", "swish", "silu")


# Hugging Face configs carry extra bookkeeping keys; only these are tolerated.
HF_BOOKKEEPING = ("model_type", "architectures", "transformers_version", "_name_or_path", "pad_token_id",
                  "position_embedding_type", "use_cache", "torch_dtype", "gradient_checkpointing",
                  "classifier_dropout", "directionality", "pooler_fc_size", "pooler_num_attention_heads",
                  "pooler_num_fc_layers", "pooler_size_per_head", "pooler_type", "dtype", "bos_token_id",
                  "eos_token_id", "output_past", "id2label", "label2id")


@dataclasses.dataclass(frozen=True)
class BertConfig(JsonConfig):
    """Hyper-parameters of a BERT encoder, field names as in `bert_config.json`.

    `causal_attention` marks the paper's left-to-right ablation: it travels
    with the checkpoint's config so that fine-tuning and exports keep the mask
    the model was pretrained with. `fine_tuning_bilstm` is the paper's
    "+ BiLSTM" ablation: a randomly initialised BiLSTM over the last layer,
    created and trained at fine-tuning (pretraining refuses it: a left-to-right
    LM would see the future through it). Each is written only when true, so
    other configs keep the original file's fields.

    Example:
    >>> config = BertConfig.from_preset("bert_base_uncased")
    >>> config.hidden_size, config.num_hidden_layers
    (768, 12)
    >>> BertConfig.from_json_file("uncased_L-12_H-768_A-12/bert_config.json")
    """

    error = ConfigError  # not a field: no annotation
    # The family's own names, for the files beside a checkpoint and for messages.
    config_file_name = "bert_config.json"
    vocab_size_field = "vocab_size"
    vocab_file_flag = "--vocab_file"

    vocab_size: int = 30522
    hidden_size: int = 768
    num_hidden_layers: int = 12
    num_attention_heads: int = 12
    intermediate_size: int = 3072
    hidden_act: str = "gelu"
    hidden_dropout_prob: float = 0.1
    attention_probs_dropout_prob: float = 0.1
    max_position_embeddings: int = 512
    type_vocab_size: int = 2
    initializer_range: float = 0.02
    layer_norm_eps: float = 1e-12
    causal_attention: bool = False
    fine_tuning_bilstm: bool = False

    def __post_init__(self):
        self.check_fields(
            positive_ints=("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
                           "intermediate_size", "max_position_embeddings", "type_vocab_size"),
            probabilities=("hidden_dropout_prob", "attention_probs_dropout_prob"),
            positive_numbers=("initializer_range", "layer_norm_eps"), booleans=("causal_attention", "fine_tuning_bilstm"))
        if self.hidden_size % self.num_attention_heads:
            raise ConfigError(
                f"hidden_size {self.hidden_size} is not divisible by "
                f"num_attention_heads {self.num_attention_heads}")
        if self.fine_tuning_bilstm and self.hidden_size % 2:
            raise ConfigError(f"fine_tuning_bilstm: hidden_size {self.hidden_size} must be even "
                              "(half of it each way)")
        if self.hidden_act not in _ACTIVATIONS:
            raise ConfigError(f"hidden_act {self.hidden_act!r} is not one of {_ACTIVATIONS}")

    def to_dict(self):
        values = super().to_dict()
        for name in ("causal_attention", "fine_tuning_bilstm"):
            if not values[name]:
                del values[name]
        return values

    @property
    def head_size(self):
        return self.hidden_size // self.num_attention_heads

    @property
    def input_vocab_sizes(self):
        return {"input_word_ids": self.vocab_size, "input_type_ids": self.type_vocab_size}

    @classmethod
    def from_dict(cls, values, source="config"):
        position_type = values.get("position_embedding_type", "absolute")
        if position_type != "absolute":
            raise ConfigError(f"{source}: position_embedding_type {position_type!r} is not supported")
        return super().from_dict(values, source, ignorable=HF_BOOKKEEPING)

    @classmethod
    def presets(cls):
        return PRESETS


def _small_bert_presets():
    """The 24 small BERTs (Turc et al. 2019): L in {2..12} x H in {128..768}, A = H/64."""
    presets = {}
    for layers in (2, 4, 6, 8, 10, 12):
        for hidden in (128, 256, 512, 768):
            presets[f"bert_uncased_L-{layers}_H-{hidden}_A-{hidden // 64}"] = BertConfig(
                hidden_size=hidden, num_hidden_layers=layers,
                num_attention_heads=hidden // 64, intermediate_size=4 * hidden)
    return presets


PRESETS = {
    "bert_base_uncased": BertConfig(),
    "bert_base_cased": BertConfig(vocab_size=28996),
    "bert_large_uncased": BertConfig(hidden_size=1024, num_hidden_layers=24,
                                     num_attention_heads=16, intermediate_size=4096),
    "bert_large_cased": BertConfig(vocab_size=28996, hidden_size=1024, num_hidden_layers=24,
                                   num_attention_heads=16, intermediate_size=4096),
    "bert_base_multilingual_cased": BertConfig(vocab_size=119547),
    "bert_tiny_uncased": BertConfig(hidden_size=128, num_hidden_layers=2,
                                    num_attention_heads=2, intermediate_size=512),
    **_small_bert_presets(),
}
