"""`run`, `subprocess.run` for the suite's command lines, each still a process of its
own, forked from a Python that imported TensorFlow once (`utils.warm_start`) instead
of importing it again (8 s of CPU on a 2-core host, for each command).

A command whose environment changes what those imports read gets a server started
with that environment (`utils.warm_start.import_time_key`). Another Keras backend
starts cold (a server importing Keras under JAX is not proven in a whole suite run),
as do input on stdin, interpreter options and programs other than the interpreter.
A command whose claim is about start-up itself (no TensorFlow noise on stderr) calls
`subprocess.run`.
Children of one server share its hash seed: a check that needs two processes to
differ in it must start them cold. WARM_PYTHON=0 starts every command cold (to
measure what the servers save)."""

import atexit
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile
import threading

from utils.warm_start import WarmStart, import_time_key

_servers = {}
_servers_lock = threading.Lock()


def _server(env):
    with _servers_lock:
        key = import_time_key(env)
        if key not in _servers:
            _servers[key] = WarmStart(env)
        return _servers[key]


@atexit.register
def _close_servers():
    for server in _servers.values():
        server.close()


def _warm(args, env, kwargs):
    command = args[2:] if args[1:2] == ["-I"] else args[1:]  # -I: isolated from PYTHON* and the folder
    return (args[0] == sys.executable and command and (command[0] in ("-c", "-m") or not command[0].startswith("-"))
            and (args[1] != "-I" or command[0] == "-c")
            and kwargs.get("input") is None and kwargs.get("stdin") is None
            and env.get("KERAS_BACKEND", "tensorflow") == "tensorflow"
            and os.environ.get("WARM_PYTHON") != "0")


def run(args, *, cwd=None, env=None, capture_output=False, text=False, timeout=None, check=False, **kwargs):
    """`subprocess.run(args, ...)`, warm where a cold start would not differ (see the module)."""
    args = [str(a) for a in args]
    env = dict(os.environ if env is None else env)
    if args[1:] in (["-"], ["-I", "-"]) and isinstance(kwargs.get("input"), str):
        args = [*args[:-1], "-c", kwargs.pop("input")]  # the program on stdin, as `-c` takes it
    if not _warm(args, env, kwargs):
        return subprocess.run(args, cwd=cwd, env=env, capture_output=capture_output, text=text,
                              timeout=timeout, check=check, **kwargs)
    stdout, stderr, umask = (kwargs.pop(name, None) for name in ("stdout", "stderr", "umask"))
    assert not kwargs, f"not supported warm: {sorted(kwargs)}"
    folder = tempfile.mkdtemp(prefix="warm_python_")
    try:
        paths = [os.path.join(folder, name) for name in ("stdout", "stderr")]
        if stderr == subprocess.STDOUT:
            paths[1] = paths[0]
        streams = [os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644) for path in paths]
        try:
            pid, ended = _server(env).start(args[1:], cwd or os.getcwd(), env, *streams,
                                            None if umask is None or umask < 0 else umask)
        finally:
            for stream in streams:
                os.close(stream)
        try:
            code = ended.result(timeout=timeout)
        except concurrent.futures.TimeoutError:
            os.kill(pid, 9)
            ended.result(timeout=60)
            raise subprocess.TimeoutExpired(args, timeout)
        out, err = (_read(path) for path in paths)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if text:
        out, err = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    out = _deliver(out, stdout, capture_output, sys.stdout)
    err = None if stderr == subprocess.STDOUT else _deliver(err, stderr, capture_output, sys.stderr)
    if check and code:
        raise subprocess.CalledProcessError(code, args, out, err)
    return subprocess.CompletedProcess(args, code, out, err)


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _deliver(output, target, captured, stream):
    """The output `run` returns: kept where captured, else written where the caller sent it."""
    if captured or target == subprocess.PIPE:
        return output
    if target is None:
        stream.write(output if isinstance(output, str) else output.decode("utf-8", "replace"))
    return None
