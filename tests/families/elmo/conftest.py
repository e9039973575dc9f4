"""The original `bilm` run once per test session on every case of `cases.py`
(one subprocess, about 20 s on two cores), its outputs shared by the tests."""

import os
import sys

import numpy as np
import pytest

from tests import warm_python
from tests.families.elmo import cases

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="session")
def elmo_cases(tmp_path_factory):
    """{case name: directory} of cases written in the original layout."""
    root = tmp_path_factory.mktemp("elmo_cases")
    directories = {}
    for seed, name in enumerate(cases.CONFIGS):
        directories[name] = str(root / name)
        cases.write_case(directories[name], name, seed)
    return directories


@pytest.fixture(scope="session")
def bilm_outputs(elmo_cases):
    """{case name: the original's outputs (`bilm_reference.py`)}."""
    pytest.importorskip("bilm", reason="the original biLM (pip install bilm==0.1.post5) is the oracle")
    warm_python.run([sys.executable, os.path.join(HERE, "bilm_reference.py"), *elmo_cases.values()],
                    check=True, capture_output=True, timeout=600)
    return {name: dict(np.load(os.path.join(d, "reference.npz"))) for name, d in elmo_cases.items()}
