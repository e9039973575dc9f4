"""The suite's warm `run` answers as `subprocess.run` does, each command in a process of its own."""

import json
import os
import subprocess
import sys

import pytest

from tests import warm_python
from tests.conftest import ROOT

SHOW = ("import json, os, random, sys, numpy\nprint(json.dumps([os.getpid(), os.getcwd(), os.environ.get('PICKED'), "
        "sys.argv[1:], 'tensorflow' in sys.modules, os.umask(0), random.random(), numpy.random.rand()]))\n"
        "print('to stderr', file=sys.stderr)\nsys.exit(3)")


def test_a_command_runs_in_its_own_process_with_its_folder_environment_and_arguments(tmp_path):
    done = warm_python.run([sys.executable, "-c", SHOW, "a b", "c"], cwd=tmp_path, text=True,
                           env={**os.environ, "PICKED": "yes"}, capture_output=True, umask=0o077)
    pid, cwd, picked, argv, warm, umask, *draws = json.loads(done.stdout)
    assert done.returncode == 3 and done.stderr == "to stderr\n"
    assert pid != os.getpid() and cwd == str(tmp_path) and picked == "yes"
    assert argv == ["a b", "c"] and warm == (os.environ.get("WARM_PYTHON") != "0") and umask == 0o077
    again = warm_python.run([sys.executable, "-c", SHOW], capture_output=True, text=True)
    again = json.loads(again.stdout)
    assert again[0] != pid and again[-2:] != draws  # another process each time, with its own random draws


def test_a_script_and_a_module_run_as_the_interpreter_runs_them(tmp_path):
    script = tmp_path / "script.py"
    script.write_text("import sys\nprint(__name__, sys.argv, sys.path[0])\nraise ValueError('bad')\n")
    done = warm_python.run([sys.executable, str(script), "--flag"], capture_output=True, text=True)
    assert done.stdout == f"__main__ {[str(script), '--flag']} {tmp_path}\n"
    assert done.returncode == 1 and done.stderr.rstrip().endswith("ValueError: bad")
    module = warm_python.run([sys.executable, "-m", "json.tool", "--help"], capture_output=True, text=True)
    assert module.returncode == 0 and module.stdout.startswith("usage: python -m json.tool")


def test_an_isolated_program_on_stdin_does_not_see_the_project(tmp_path):
    program = f"import sys\nprint({ROOT!r} in sys.path, '' in sys.path)"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = warm_python.run([sys.executable, "-I", "-"], input=program, cwd=ROOT, env=env,
                           capture_output=True, text=True)
    assert done.stdout == "False False\n", done.stderr


def test_a_command_over_its_time_is_killed_and_reported():
    with pytest.raises(subprocess.TimeoutExpired):
        warm_python.run([sys.executable, "-c", "import time; time.sleep(60)"], timeout=1)


def test_a_command_whose_imports_would_differ_starts_cold():
    done = warm_python.run([sys.executable, "-c", "import sys; print('tensorflow' in sys.modules)"],
                           env={**os.environ, "KERAS_BACKEND": "jax"}, capture_output=True, text=True)
    assert done.stdout == "False\n"
