"""`XLNetConfig`: the original `xlnet_config.json` (model size) plus the run
options the original passes as flags (memory, attention type, dropout), validated,
and named presets."""

import dataclasses

from modeling.json_config import ConfigError, JsonConfig, is_int

_ACTIVATIONS = ("gelu", "gelu_new", "gelu_tanh", "relu")
_ATTENTION_TYPES = ("bi", "uni")
PRETRAINING_SEQ_LEN = 512
# Run options only pretraining sets: the original's fine-tuning builds its model
# without them whatever the pretraining used (`create_run_config(is_finetune=True)`:
# no memory, bi_data and same_length off; clamp_len its own flag, -1).
PRETRAINING_ONLY = ("mem_len", "reuse_len", "bi_data", "same_length", "clamp_len")


class XLNetConfigError(ConfigError):
    """A config that cannot describe an XLNet; the message names the field."""


@dataclasses.dataclass(frozen=True)
class XLNetConfig(JsonConfig):
    """Hyper-parameters of an XLNet, field names as in the original code.

    The first eight are `xlnet_config.json`; the rest are the original's
    `RunConfig` flags. `ff_activation="gelu"` is the exact erf GELU (as Hugging
    Face and this project's BERT); the original TensorFlow code computed the
    tanh approximation, which `"gelu_new"` reproduces. `mem_len=0` caches no
    memory; `reuse_len=0` caches the whole segment.

    Example:
    >>> config = XLNetConfig.from_preset("xlnet_base_cased")
    >>> config.n_layer, config.d_model
    (12, 768)
    >>> XLNetConfig.from_json_file("xlnet_cased_L-12_H-768_A-12/xlnet_config.json")
    """

    error = XLNetConfigError  # not a field: no annotation
    # The family's own names, for the files beside a checkpoint and for messages.
    config_file_name = "xlnet_config.json"
    vocab_size_field = "n_token"
    vocab_file_flag = "--spiece_model_file"

    n_token: int = 32000
    n_layer: int = 12
    d_model: int = 768
    n_head: int = 12
    d_head: int = 64
    d_inner: int = 3072
    ff_activation: str = "gelu"
    untie_r: bool = True
    mem_len: int = 0
    reuse_len: int = 0
    bi_data: bool = False
    clamp_len: int = -1
    same_length: bool = False
    attn_type: str = "bi"
    dropout: float = 0.1
    dropatt: float = 0.1
    initializer_range: float = 0.02
    layer_norm_eps: float = 1e-12

    def __post_init__(self):
        self.check_fields(
            positive_ints=("n_token", "n_layer", "d_model", "n_head", "d_head", "d_inner"),
            non_negative_ints=("mem_len", "reuse_len"), booleans=("untie_r", "bi_data", "same_length"),
            probabilities=("dropout", "dropatt"), positive_numbers=("initializer_range", "layer_norm_eps"))
        if not is_int(self.clamp_len):
            raise XLNetConfigError(
                f"clamp_len must be an integer (<= 0: no clamping), got {self.clamp_len!r}")
        if self.ff_activation not in _ACTIVATIONS:
            raise XLNetConfigError(f"ff_activation {self.ff_activation!r} is not one of {_ACTIVATIONS}")
        if self.attn_type not in _ATTENTION_TYPES:
            raise XLNetConfigError(f"attn_type {self.attn_type!r} is not one of {_ATTENTION_TYPES}")

    # The encoder interface's names (`modeling.encoder_interface.CONFIG_FIELDS`)
    # and the dropout a task's head takes by default.
    @property
    def hidden_size(self):
        return self.d_model

    @property
    def max_position_embeddings(self):
        """Relative positions have no table; this is the original's pretraining
        length, the longest sequence the released weights have seen."""
        return PRETRAINING_SEQ_LEN

    @property
    def hidden_dropout_prob(self):
        return self.dropout

    @property
    def vocab_size(self):
        """`n_token` under BERT's name, for the check that a vocabulary fits."""
        return self.n_token

    @property
    def input_vocab_sizes(self):
        """Word ids only: segment ids are compared, not looked up."""
        return {"input_word_ids": self.n_token}

    def for_fine_tuning(self):
        """This config with `PRETRAINING_ONLY` at their defaults, as the
        original's fine-tuning runs: no memory, no backward rows (`bi_data`
        ties each row to its partner half a batch away), every position at its
        own distance. A pretraining output_dir records them."""
        defaults = {f.name: f.default for f in dataclasses.fields(self) if f.name in PRETRAINING_ONLY}
        return self.replace(**defaults)

    @classmethod
    def presets(cls):
        return XLNET_PRESETS



XLNET_PRESETS = {
    # The released models (Yang et al. 2019): cased, SentencePiece vocabulary of 32000.
    "xlnet_base_cased": XLNetConfig(),
    "xlnet_large_cased": XLNetConfig(n_layer=24, d_model=1024, n_head=16, d_head=64, d_inner=4096),
    # For tests and demos: every part of the architecture, small enough to run in a moment.
    "xlnet_tiny": XLNetConfig(n_token=100, n_layer=2, d_model=32, n_head=4, d_head=8, d_inner=64),
}
