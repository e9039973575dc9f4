"""Runs a benchmark script as a user would, in a process of its own, and reads its table."""

import os
import subprocess
import sys

from tests.conftest import ROOT


def run_benchmark(tmp_path, name, *flags, env=None, timeout=900):
    """stdout of `python benchmarks/<name> <flags>`, run from `tmp_path`; fails the test on an error."""
    done = subprocess.run(
        [sys.executable, os.path.join(ROOT, "benchmarks", name), *flags],
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", **(env or {})}, capture_output=True,
        text=True, timeout=timeout, cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def table_rows(stdout, contenders):
    """{contender: the cells of its row} of the printed table."""
    rows = [line.split() for line in stdout.splitlines()]
    return {row[0]: row for row in rows if row and row[0] in contenders}


def compare_with_hugging_face(tmp_path, name, *flags):
    """stdout of a CPU benchmark's one-step run of ours_fp32 against hf_torch_fp32, its host lines and
    both rows checked: ours' speed is a number and HF's ratio to itself is 1.00x."""
    stdout = run_benchmark(tmp_path, name, *flags, "--steps=1", "--warmup_steps=1", "--repeats=1",
                           "--contenders=ours_fp32,hf_torch_fp32")
    assert "Model name" in stdout and "Flags" in stdout, stdout
    rows = table_rows(stdout, ("ours_fp32", "hf_torch_fp32"))
    assert set(rows) == {"ours_fp32", "hf_torch_fp32"}, stdout
    assert float(rows["ours_fp32"][1]) > 0 and rows["hf_torch_fp32"][3] == "1.00x", stdout
    assert rows["ours_fp32"][3].endswith("x"), stdout
    return stdout
