"""Fixtures the runner tests share."""

import pytest

from tests.runners.xlnet_release import copy_as_pretrained, write_xlnet_release


@pytest.fixture(scope="session")
def xlnet_release(tmp_path_factory):
    """Checkpoint prefix of a release-like XLNet-tiny directory (original TF1
    layout, `xlnet_config.json`, a learned `spiece.model`); tests copy it
    before changing it."""
    return write_xlnet_release(tmp_path_factory.mktemp("xlnet_cased"))


@pytest.fixture(scope="session")
def xlnet_pretrained(xlnet_release, tmp_path_factory):
    """Checkpoint prefix of the release beside the `xlnet_config.json` a
    pretraining output_dir writes (`bi_data`, memory, `same_length`, `clamp_len`)."""
    return copy_as_pretrained(xlnet_release, tmp_path_factory.mktemp("xlnet_pretrained") / "run")
