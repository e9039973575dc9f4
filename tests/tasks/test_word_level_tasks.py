"""Question answering aligns word pieces with WordPiece's words: with another
family's text side it refuses at once, naming the task, instead of failing
later on a vocabulary it cannot read."""

import pytest

from modeling.xlnet import XLNetConfig
from tasks.question_answering import QuestionAnsweringConfig, QuestionAnsweringTask
from tests.spiece_model import learn_spiece_model

CONFIG = XLNetConfig.from_preset("xlnet_tiny").replace(n_token=128)


@pytest.fixture(scope="module")
def spiece_model(tmp_path_factory):
    return learn_spiece_model(tmp_path_factory.mktemp("spm"))


def test_question_answering_needs_wordpiece(spiece_model):
    with pytest.raises(ValueError, match="the question answering task needs the words and "
                                         "offsets of WordPiece.*the xlnet text side has none"):
        QuestionAnsweringTask(QuestionAnsweringConfig(spiece_model, CONFIG))

