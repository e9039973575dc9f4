"""Fixtures the runner tests share."""

import pytest

from tests.runners.xlnet_release import write_xlnet_release


@pytest.fixture(scope="session")
def tiny_xlnet_release(tmp_path_factory):
    """Checkpoint prefix of a release-like XLNet-tiny directory (`xlnet_model.ckpt`
    in the original TF1 layout, `xlnet_config.json`, a learned `spiece.model`)."""
    return write_xlnet_release(tmp_path_factory.mktemp("xlnet_cased"))
