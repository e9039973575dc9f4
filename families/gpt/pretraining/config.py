"""Settings of GPT pretraining-data generation, validated before any work starts."""

import dataclasses


@dataclasses.dataclass(frozen=True)
class GPTDataConfig:
    """What decides the records a corpus gives.

    Each record is one window of `max_seq_length` consecutive BPE ids of the
    corpus (the original: 512), the last window of a chunk padded. Ids come
    from the in-graph tokenizer fine-tuning and exports use, or with
    `original_tokenizer` from the original Python pipeline (ftfy, spaCy); the
    two agree on 99.9% of sentences (docs/families/gpt-text.md).
    """

    max_seq_length: int = 512
    original_tokenizer: bool = False

    def __post_init__(self):
        if self.max_seq_length < 2:
            raise ValueError(f"max_seq_length must be >= 2 (a token and the next one to predict), "
                             f"got {self.max_seq_length}")
