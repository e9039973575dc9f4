"""What the every-family suite (tests/families/test_every_family.py) needs of
ELMo: no vocabulary (a character biLM reads any word, and the released models
come without one), the tiny preset, and the hostile strings its exports must
answer."""

from families.elmo.config import ELMoConfig
from tests.data.text.test_tokenizer_parity import HOSTILE_BYTES
from tests.families.elmo.test_characters import ELMO_HOSTILE


def vocabulary(tmp_path_factory):
    """None: the runners and exports run from the options file alone."""
    del tmp_path_factory
    return None


def tiny_config():
    return ELMoConfig.from_preset("elmo_tiny")


def hostile_texts():
    """Empty, 100,000 characters (one word: a many-word one costs SQuAD thousands
    of windows, which the ids tests and the TF Hub module test cover), words over
    50 bytes, 10,000 emoji, punctuation everywhere, invalid UTF-8."""
    return [text.encode("utf-8") for text in ELMO_HOSTILE
            if len(text.split()) < 100] + HOSTILE_BYTES
