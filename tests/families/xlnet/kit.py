"""What the every-family suite (tests/families/test_every_family.py) needs of XLNet:
a SentencePiece model learned here and a tiny config with room for its pieces."""

from tests.families.xlnet.corpus import build_spiece
from tests.runners.xlnet_release import CONFIG


def vocabulary(tmp_path_factory):
    """`spiece.model` of at most 120 pieces, learned from the tests' small corpus."""
    return build_spiece(tmp_path_factory.mktemp("xlnet_spiece"))


def tiny_config():
    """xlnet_tiny with `n_token=128`: every piece of `vocabulary` fits."""
    return CONFIG
