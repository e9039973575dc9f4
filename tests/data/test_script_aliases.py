"""The command lines published before the scripts moved to the repository
root (`python data/<script>.py ...`) still run those scripts."""

import ast
import os
import sys

import pytest

from tests import warm_python
from tests.conftest import ROOT

SCRIPTS = ["build_vocab.py", "create_pretraining_data.py", "pack_pretraining_data.py"]


@pytest.mark.parametrize("script", SCRIPTS)
def test_data_alias_runs_the_root_script(script):
    with open(os.path.join(ROOT, script), encoding="utf-8") as f:
        first_line = ast.get_docstring(ast.parse(f.read())).splitlines()[0]
    result = warm_python.run([sys.executable, os.path.join("data", script), "--helpshort"],
                             cwd=ROOT, capture_output=True, text=True, timeout=300)
    # absl's --helpshort prints the main module's docstring and flags, then exits with 1.
    assert result.stdout.startswith(first_line), result.stderr[-2000:]
    assert "--output_file" in result.stdout
