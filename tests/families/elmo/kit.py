"""What the every-family suite (tests/families/test_every_family.py) needs of
ELMo: no vocabulary (a character biLM reads any word, and the released models
come without one), and the tiny preset."""

from families.elmo.config import ELMoConfig


def vocabulary(tmp_path_factory):
    """None: the runners and exports run from the options file alone."""
    del tmp_path_factory
    return None


def tiny_config():
    return ELMoConfig.from_preset("elmo_tiny")


def hostile_texts():
    """Empty, 100,000 characters, words over 50 bytes, 10,000 emoji, invalid UTF-8, ..."""
    from tests.families.elmo.test_characters import HOSTILE
    return HOSTILE
