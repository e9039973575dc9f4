"""The README's main job runs end to end on built-in defaults."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_main_job_runs_and_reports_shapes():
    result = subprocess.run([sys.executable, os.path.join(ROOT, "main.py")], cwd=ROOT, check=True,
                            capture_output=True, text=True,
                            env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
    assert "sequence_output: shape (3, 24, 128)" in result.stdout
    assert "pooled_output: shape (3, 128)" in result.stdout
