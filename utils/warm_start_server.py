"""A Python that has imported TensorFlow, Keras and TensorFlow Text once and forks a
child per command (`utils/warm_start.py` is its other side): the child is a process of
its own, started as `python <script> | -m <module> | -c <code>` would be, but without
the seconds those imports take on a small host. Run by its path, it imports no project
code, so a child sees the project only as a cold process run from the same folder would.

    python utils/warm_start_server.py <fd of a Unix socket>

Requests come on stdin, one JSON object a line: {"id", "argv" (what follows the
interpreter), "cwd", "env", "umask"}, and with each, on the socket, the child's stdout
and stderr as two file descriptors. Answers go to stdout: "started <id> <pid>" and,
when the child ends, "ended <id> <return code>". At the end of stdin (its starter
gone) the children still running are killed."""

import atexit
import json
import os
import runpy
import select
import socket
import sys
import tempfile
import traceback
import types

import keras  # noqa: F401  (the imports every child would make)
import numpy
import tensorflow  # noqa: F401
import tensorflow_text  # noqa: F401

_BASE_PATH = sys.path[1:]  # sys.path[0] is this file's folder; a child puts its own there
# What `-I` (isolated: no PYTHON* variables, no script or working folder on the path) leaves of it.
_ISOLATED_PATH = [p for p in _BASE_PATH if p not in os.environ.get("PYTHONPATH", "").split(os.pathsep)]


def _run(argv, cwd):
    """Runs `argv` as the interpreter would; returns its exit status."""
    os.chdir(cwd)
    isolated = argv[0] == "-I"
    if isolated:
        argv = argv[1:]
    if argv[0] == "-c":
        sys.argv = ["-c", *argv[2:]]
        sys.path[:] = _ISOLATED_PATH if isolated else ["", *_BASE_PATH]
        main = sys.modules["__main__"] = types.ModuleType("__main__")
        runner = lambda: exec(compile(argv[1], "<string>", "exec"), main.__dict__)  # noqa: E731
    elif argv[0] == "-m":
        sys.argv = [argv[1], *argv[2:]]
        sys.path[:] = [cwd, *_BASE_PATH]
        runner = lambda: runpy.run_module(argv[1], run_name="__main__", alter_sys=True)  # noqa: E731
    else:
        script = os.path.abspath(argv[0])
        sys.argv = list(argv)
        sys.path[:] = [os.path.dirname(script), *_BASE_PATH]
        runner = lambda: runpy.run_path(script, run_name="__main__")  # noqa: E731
    try:
        runner()
        return 0
    except SystemExit as done:
        if done.code is None or isinstance(done.code, int):
            return done.code or 0
        print(done.code, file=sys.stderr)
        return 1
    except BaseException:  # noqa: BLE001  (what an uncaught exception does to a cold process)
        traceback.print_exc()
        return 1


def _child(request, streams):
    """In the forked child: its own streams, environment and folder, then the command."""
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    for fd, stream in zip((1, 2), streams):
        os.dup2(stream, fd)
    for stream in streams:
        os.close(stream)
    os.environ.clear()
    os.environ.update(request["env"])
    tempfile.tempdir = None  # found again from TMPDIR and the like, as a new process finds it
    numpy.random.seed()  # its own draws, as a new process has (`random` reseeds itself at a fork)
    if request["umask"] is not None:
        os.umask(request["umask"])
    code = 1
    try:
        code = _run(request["argv"], request["cwd"])
        atexit._run_exitfuncs()  # what the interpreter runs at its exit, os._exit skips
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        os._exit(code if 0 <= code < 256 else 1)


def main():
    streams_socket = socket.socket(fileno=int(sys.argv[1]))
    running = {}  # pid: request id
    pending = ""
    while True:
        readable, _, _ = select.select([0], [], [], 0.05)
        if readable:
            chunk = os.read(0, 1 << 16).decode("utf-8")
            if not chunk:
                break
            pending += chunk
            while "\n" in pending:
                line, pending = pending.split("\n", 1)
                request = json.loads(line)
                _, streams, _, _ = socket.recv_fds(streams_socket, 1, 2)
                sys.stdout.flush()
                pid = os.fork()
                if pid == 0:
                    streams_socket.close()
                    _child(request, streams)
                for stream in streams:
                    os.close(stream)
                running[pid] = request["id"]
                print(f"started {request['id']} {pid}", flush=True)
        while running:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            print(f"ended {running.pop(pid)} {os.waitstatus_to_exitcode(status)}", flush=True)
    for pid in running:
        os.kill(pid, 9)


if __name__ == "__main__":
    main()
