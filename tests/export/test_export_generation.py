"""The generation export refuses a family without a left-to-right language
model, naming it, before it reads any weights."""

import pytest

from export.export_generation import NoLanguageModelError, write_generation
from tests.export_harness import TINY_CONFIG


def test_a_family_without_a_language_model_is_refused(tmp_path):
    with pytest.raises(NoLanguageModelError, match="the bert family has no left-to-right language model"):
        write_generation(str(tmp_path / "out"), TINY_CONFIG, "vocab.txt", True, "no-checkpoint")
    assert not (tmp_path / "out").exists()
