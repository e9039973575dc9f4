"""The original's `bilm/data.py` (its vocabularies and batchers), which needs
no TensorFlow: loaded alone, in the test process."""

import importlib.util
import os

import pytest


def original_data_module():
    """`bilm/data.py` alone (the package's __init__ imports its TensorFlow 1 model)."""
    spec = importlib.util.find_spec("bilm")
    if spec is None:
        pytest.skip("the original biLM (pip install bilm==0.1.post5) is the oracle")
    path = os.path.join(spec.submodule_search_locations[0], "data.py")
    module_spec = importlib.util.spec_from_file_location("original_bilm_data", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module
