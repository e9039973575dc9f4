"""Settings of pretraining-data generation, shared by the offline writer and
the dynamic tf.data path so both build the same kind of example."""

import dataclasses

# The paper's objective and its two ablations (Devlin et al., 2018, table 5).
OBJECTIVES = ("mlm_nsp", "mlm", "ltr")  # the names families/bert/pretrainer.py uses


@dataclasses.dataclass(frozen=True)
class MaskingOptions:
    """How masked-LM targets are chosen: `masked_lm_prob` of the tokens (at
    most `max_predictions_per_seq`), replaced by [MASK] with
    `mask_token_rate`, by a random token with `random_token_rate`, kept
    otherwise; whole words or n-grams of up to `max_ngram_size` whole words
    when `do_whole_word_mask`."""

    max_predictions_per_seq: int = 20
    masked_lm_prob: float = 0.15
    mask_token_rate: float = 0.8
    random_token_rate: float = 0.1
    do_whole_word_mask: bool = False
    max_ngram_size: int = 1

    def __post_init__(self):
        _check(self.max_predictions_per_seq >= 1, "max_predictions_per_seq must be >= 1")
        _check(0.0 <= self.masked_lm_prob <= 1.0, "masked_lm_prob must be in [0, 1]")
        _check(0.0 <= self.mask_token_rate <= 1.0, "mask_token_rate must be in [0, 1]")
        _check(0.0 <= self.random_token_rate <= 1.0, "random_token_rate must be in [0, 1]")
        _check(
            self.mask_token_rate + self.random_token_rate <= 1.0 + 1e-9,
            "mask_token_rate + random_token_rate must be <= 1 (the rest keeps the token)",
        )
        _check(self.max_ngram_size >= 1, "max_ngram_size must be >= 1")
        _check(
            self.max_ngram_size == 1 or self.do_whole_word_mask,
            "max_ngram_size > 1 masks n-grams of whole words: set do_whole_word_mask too",
        )

    @property
    def keep_token_rate(self):
        return max(0.0, 1.0 - self.mask_token_rate - self.random_token_rate)


@dataclasses.dataclass(frozen=True)
class PretrainingDataConfig:
    """Everything that decides which examples come out of a corpus."""

    max_seq_length: int = 128
    short_seq_prob: float = 0.1
    dupe_factor: int = 10
    random_seed: int = 12345
    objective: str = "mlm_nsp"
    masking: MaskingOptions = dataclasses.field(default_factory=MaskingOptions)

    def __post_init__(self):
        _check(self.max_seq_length >= 5, "max_seq_length must be >= 5 ([CLS] A [SEP] B [SEP])")
        _check(0.0 <= self.short_seq_prob <= 1.0, "short_seq_prob must be in [0, 1]")
        _check(self.dupe_factor >= 1, "dupe_factor must be >= 1")
        _check(self.random_seed >= 0, "random_seed must be >= 0")
        _check(self.objective in OBJECTIVES, f"objective must be one of {OBJECTIVES}, got {self.objective!r}")

    @property
    def next_sentence_prediction(self):
        return self.objective == "mlm_nsp"

    @property
    def left_to_right(self):
        return self.objective == "ltr"

    @property
    def label_width(self):
        """Width of the masked_lm_* features: every position predicts its next
        token in left-to-right data, so there it is max_seq_length."""
        return self.max_seq_length if self.left_to_right else self.masking.max_predictions_per_seq


def _check(condition, message):
    if not condition:
        raise ValueError(message)
