"""`utils.warm_start`: a command forked from the warm interpreter answers as a new
`python` process would, and a server's end takes its children with it."""

import os
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT
from utils.warm_start import WarmStart

ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}


@pytest.fixture(scope="module")
def warm():
    with WarmStart(ENV) as server:
        yield server


def gone(pid):
    """Whether `pid` has ended (a zombie nobody reaped counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_child_has_its_folder_environment_and_one_stream_for_both_outputs(warm, tmp_path):
    program = ("import os, sys\nprint(os.getpid(), os.getcwd(), os.environ['PICKED'], 'tensorflow' in sys.modules)\n"
               "sys.stdout.flush()\nprint('to stderr', file=sys.stderr)\nsys.exit(4)")
    process = warm.popen(["-c", program], tmp_path, {**ENV, "PICKED": "yes"})
    lines = process.stdout.read().splitlines()
    assert process.wait(timeout=60) == 4 and process.returncode == process.poll() == 4
    pid, cwd, picked, imported = lines[0].split()
    assert int(pid) == process.pid != os.getpid() and cwd == str(tmp_path) and picked == "yes"
    assert imported == "True" and lines[1:] == ["to stderr"]


def test_a_killed_child_reports_its_signal(warm, tmp_path):
    process = warm.popen(["-c", "import time; print('up', flush=True); time.sleep(60)"], tmp_path, ENV)
    assert process.stdout.readline() == "up\n"
    process.kill()
    assert process.wait(timeout=60) == -9 and process.stdout.read() == ""


def test_a_child_whose_imports_would_differ_is_refused(warm, tmp_path):
    with pytest.raises(ValueError, match="TF_CPP_MIN_LOG_LEVEL"):
        warm.popen(["-c", "pass"], tmp_path, {**ENV, "TF_CPP_MIN_LOG_LEVEL": "0"})


def test_a_closed_server_kills_the_children_still_running(tmp_path):
    server = WarmStart(ENV)
    process = server.popen(["-c", "import os, time; print(os.getpid(), flush=True); time.sleep(60)"], tmp_path, ENV)
    assert int(process.stdout.readline()) == process.pid
    server.close()
    deadline = time.time() + 30
    while not gone(process.pid):
        assert time.time() < deadline, "the child outlived its server"
        time.sleep(0.1)
    with pytest.raises(RuntimeError, match="ended"):
        server.popen(["-c", "pass"], tmp_path, ENV)


def test_a_server_whose_starter_was_killed_ends_with_its_children(tmp_path):
    """The starter (a main job, say) killed with SIGKILL: the server sees its stdin end."""
    starter = ("import os, sys, time\nfrom utils.warm_start import WarmStart\n"
               "server = WarmStart(dict(os.environ))\n"
               "child = server.popen(['-c', 'import time; time.sleep(60)'], '.', dict(os.environ))\n"
               "print(server.pid, child.pid, flush=True)\ntime.sleep(60)\n")
    process = subprocess.Popen([sys.executable, "-c", starter], cwd=ROOT, env=ENV, stdout=subprocess.PIPE, text=True)
    pids = [int(pid) for pid in process.stdout.readline().split()]
    process.kill()
    process.wait()
    deadline = time.time() + 30
    while not all(gone(pid) for pid in pids):
        assert time.time() < deadline, "the server or its child outlived the starter"
        time.sleep(0.1)
