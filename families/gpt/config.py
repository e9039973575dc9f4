"""`GPTConfig`: the hyper-parameters of OpenAI GPT (Radford et al. 2018) under
the original code's names, validated, and named presets."""

import dataclasses

from modeling.json_config import ConfigError, JsonConfig, is_number

# The rows the original's fine-tuning appends to the token embedding:
# `_start_`, `_delimiter_`, `_classify_`.
SPECIAL_TOKENS = ("_start_", "_delimiter_", "_classify_")
# `afn` as the original names it -> the activation of `modeling.activations`
# ("gelu" is the original's tanh approximation, as Hugging Face's "gelu" here).
ACTIVATIONS = {"gelu": "gelu_new", "relu": "relu", "swish": "swish"}


class GPTConfigError(ConfigError):
    """A config that cannot describe a GPT; the message names the field."""


@dataclasses.dataclass(frozen=True)
class GPTConfig(JsonConfig):
    """Hyper-parameters of an OpenAI GPT, field names as in the original code.

    `n_vocab` counts the BPE tokens, `n_special` the rows fine-tuning adds after
    them (ids `n_vocab` ... `n_vocab + n_special - 1`); a pretrained release has
    none of those rows, so a config read from one says 0 and `for_fine_tuning()`
    asks for the three the original adds. `n_ctx` is the number of learned
    positions. The feed-forward width is `4 * n_embd`, as the original fixes it.
    `lm_coef` weighs the auxiliary language-model loss in fine-tuning and
    `clf_pdrop` is the classifier's dropout.

    Example:
    >>> config = GPTConfig.from_preset("gpt")
    >>> config.n_layer, config.n_embd, config.vocab_size
    (12, 768, 40481)
    """

    error = GPTConfigError  # not a field: no annotation
    # The family's own names, for the files beside a checkpoint and for messages.
    config_file_name = "gpt_config.json"
    vocab_size_field = "n_vocab"
    vocab_file_flag = "--vocab_file"

    n_vocab: int = 40478
    n_special: int = len(SPECIAL_TOKENS)
    n_ctx: int = 512
    n_embd: int = 768
    n_head: int = 12
    n_layer: int = 12
    embd_pdrop: float = 0.1
    attn_pdrop: float = 0.1
    resid_pdrop: float = 0.1
    clf_pdrop: float = 0.1
    afn: str = "gelu"
    layer_norm_epsilon: float = 1e-5
    initializer_range: float = 0.02
    lm_coef: float = 0.5

    def __post_init__(self):
        self.check_fields(
            positive_ints=("n_vocab", "n_ctx", "n_embd", "n_head", "n_layer"),
            non_negative_ints=("n_special",),
            probabilities=("embd_pdrop", "attn_pdrop", "resid_pdrop", "clf_pdrop"),
            positive_numbers=("layer_norm_epsilon", "initializer_range"))
        if self.n_embd % self.n_head:
            raise GPTConfigError(f"n_embd ({self.n_embd}) must be a multiple of n_head ({self.n_head})")
        if not is_number(self.lm_coef) or self.lm_coef < 0:
            raise GPTConfigError(f"lm_coef must be >= 0, got {self.lm_coef!r}")
        if self.afn not in ACTIVATIONS:
            raise GPTConfigError(f"afn {self.afn!r} is not one of {tuple(ACTIVATIONS)}")

    # The encoder interface's names (`modeling.encoder_interface.CONFIG_FIELDS`)
    # and the dropout a task's head takes by default (the original's clf_pdrop).
    @property
    def hidden_size(self):
        return self.n_embd

    @property
    def max_position_embeddings(self):
        return self.n_ctx

    @property
    def hidden_dropout_prob(self):
        return self.clf_pdrop

    @property
    def auxiliary_loss_weight(self):
        """What fine-tuning weighs the encoder's auxiliary (language-model) loss by."""
        return self.lm_coef

    @property
    def intermediate_size(self):
        return 4 * self.n_embd

    @property
    def vocab_size(self):
        """Every id the embedding takes: the BPE tokens and the special rows."""
        return self.n_vocab + self.n_special

    @property
    def input_vocab_sizes(self):
        return {"input_word_ids": self.vocab_size}

    def for_fine_tuning(self):
        """This config with at least the original's three special rows, which
        fine-tuning packs around its texts (`_start_ A _delimiter_ B _classify_`)."""
        return self.replace(n_special=max(self.n_special, len(SPECIAL_TOKENS)))

    @classmethod
    def presets(cls):
        return GPT_PRESETS



GPT_PRESETS = {
    # The released model (Radford et al. 2018) as the original fine-tunes it:
    # 40,478 BPE tokens plus the three special rows.
    "gpt": GPTConfig(),
    # For tests and demos: every part of the architecture, small enough to run in a moment.
    "gpt_tiny": GPTConfig(n_vocab=97, n_ctx=64, n_embd=32, n_head=2, n_layer=2),
    # For the main job on a CPU: a few minutes of pretraining on a small corpus.
    "gpt_mini": GPTConfig(n_vocab=40478, n_ctx=128, n_embd=256, n_head=4, n_layer=4),
}
