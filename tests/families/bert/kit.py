"""What the every-family suite (tests/families/test_every_family.py) needs of BERT:
the released uncased WordPiece vocabulary and the tests' tiny config over it."""

import os

from tests.references import minilm_dir
from tests.tiny_config import TINY_CONFIG


def vocabulary(tmp_path_factory):
    """The released uncased `vocab.txt` (30,522 pieces), as shipped beside the
    pretrained MiniLM the other tests use."""
    del tmp_path_factory  # nothing to build
    return os.path.join(minilm_dir(), "vocab.txt")


def tiny_config():
    """The tests' tiny BERT, whose default `vocab_size` is the released vocabulary's."""
    return TINY_CONFIG
