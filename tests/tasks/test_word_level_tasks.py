"""Tagging aligns word pieces with WordPiece's words: with another family's text
side it refuses at once, naming the task, instead of failing later on a
vocabulary it cannot read."""

import pytest

from modeling.xlnet import XLNetConfig
from tasks.tagging import TaggingConfig, TaggingTask
from tests.spiece_model import learn_spiece_model

CONFIG = XLNetConfig.from_preset("xlnet_tiny").replace(n_token=128)


@pytest.fixture(scope="module")
def spiece_model(tmp_path_factory):
    return learn_spiece_model(tmp_path_factory.mktemp("spm"))


def test_tagging_needs_wordpiece(spiece_model, tmp_path):
    with pytest.raises(ValueError, match="the tagging task needs the words"):
        TaggingTask(TaggingConfig(str(tmp_path), spiece_model, CONFIG))
