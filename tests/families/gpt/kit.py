"""What the every-family suite (tests/families/test_every_family.py) needs of
OpenAI GPT: the tests' small BPE vocabulary (2,000 merges learned from the
shared data, `tests/fixtures/gpt/README.md`) and a tiny config over it."""

import functools
import json
import os

from families.gpt.config import GPTConfig
from families.gpt.text_side import GPTText
from tests.conftest import FIXTURES

ENCODER_FILE = os.path.join(FIXTURES, "gpt", "encoder_bpe_2000.json")


def vocabulary(tmp_path_factory):
    """`encoder_bpe_2000.json`, its merges `vocab_2000.bpe` beside it."""
    del tmp_path_factory  # nothing to build
    return ENCODER_FILE


def tiny_config():
    """gpt_tiny over that vocabulary, with the three special rows fine-tuning packs."""
    with open(ENCODER_FILE, encoding="utf-8") as f:
        n_vocab = len(json.load(f))
    return GPTConfig.from_preset("gpt_tiny").replace(n_vocab=n_vocab).for_fine_tuning()


@functools.lru_cache(maxsize=None)
def text_side():
    """GPT's text side over that vocabulary, made once per test process: its
    graph tokenizer takes seconds to build and trace."""
    return GPTText.from_file(ENCODER_FILE, do_lower_case=True)
