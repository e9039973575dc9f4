"""Fixtures the checkpoint tests share."""

import importlib
import os

import keras
import pytest

from checkpoints.ours import save_weights
from families import registry


def tiny_config(name):
    """The tiny config of family `name`'s test kit."""
    return importlib.import_module(f"tests.families.{name}.kit").tiny_config()


def _checkpoint_in(directory):
    """A TensorFlow checkpoint's prefix in `directory`, else the directory."""
    prefixes = sorted(f[:-len(".index")] for f in os.listdir(directory) if f.endswith(".index"))
    return os.path.join(directory, prefixes[0]) if prefixes else directory


@pytest.fixture(scope="session")
def family_checkpoints(tmp_path_factory):
    """{(family name, format written): path}: each family's tiny encoder saved as
    ours and converted to each layout it writes (keras-hub needs a vocabulary:
    not here). Tests copy one before changing it."""
    root = tmp_path_factory.mktemp("families")
    found = {}
    for name in registry.names():
        family, config = registry.family(name), tiny_config(name)
        keras.utils.set_random_seed(1)
        ours = str(root / f"{name}_ours")
        save_weights(family.build_encoder(config), ours)
        found[name, "ours"] = ours
        for fmt in family.output_formats:
            if fmt not in ("ours", "keras_hub"):
                family.convert(ours, str(root / f"{name}_{fmt}"), fmt, config)
                found[name, fmt] = _checkpoint_in(str(root / f"{name}_{fmt}"))
    return found
