"""Files and SavedModel folders written atomically end with the modes a plain
`open()` or `os.makedirs` gives under the umask, whatever the umask, so a model
server running as another user reads what the group and others may read."""

import os

import pytest
import tensorflow as tf

from export.saved_model_io import save_atomically
from tests.conftest import modes_unlike_plain_writes, umask
from utils.files import atomic_output, atomic_write_bytes, atomic_write_text

UMASKS = [0o022, 0o027, 0o002, 0o077]


@pytest.mark.parametrize("mask", UMASKS, ids=oct)
def test_atomic_files_have_the_modes_of_plain_writes(tmp_path, mask):
    with umask(mask):
        atomic_write_text(str(tmp_path / "new" / "config.json"), "{}\n")
        atomic_write_bytes(str(tmp_path / "new" / "spiece.model"), b"\x00")
        with atomic_output(str(tmp_path / "new" / "predictions.tsv")) as f:
            f.write("index\tprediction\n")
        assert modes_unlike_plain_writes(mask, str(tmp_path / "new")) == {}


class _Served(tf.Module):
    def __init__(self, asset_path):
        super().__init__()
        self.scale = tf.Variable(2.0)
        self.vocab_file = tf.saved_model.Asset(asset_path)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def serve(self, x):
        return {"y": self.scale * x}


def _warmup(staging):
    os.makedirs(os.path.join(staging, "assets.extra"))
    with open(os.path.join(staging, "assets.extra", "tf_serving_warmup_requests"), "wb") as f:
        f.write(b"\x00")


@pytest.mark.parametrize("mask", UMASKS, ids=oct)
def test_a_saved_model_folder_has_the_modes_of_plain_writes(tmp_path, mask):
    """Written twice: the second export replaces the first."""
    asset = tmp_path / "vocab.txt"
    asset.write_text("[PAD]\n")
    module = _Served(str(asset))
    export_dir = str(tmp_path / "serving" / "1")
    with umask(mask):
        for _ in range(2):
            save_atomically(module, export_dir, {"serving_default": module.serve}, _warmup)
            assert modes_unlike_plain_writes(mask, export_dir) == {}
    assert sorted(os.listdir(tmp_path / "serving")) == ["1"]
