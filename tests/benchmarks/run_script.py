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
