"""Python commands started warm: each still a process of its own, forked from a Python
that imported TensorFlow, Keras and TensorFlow Text once (`utils/warm_start_server.py`)
instead of importing them again (5 to 8 s of CPU on a 2-core host, for each command).

The server is started with an environment: a child whose environment changes what
those imports read (TensorFlow's start-up logging and oneDNN switch, CUDA's devices,
the Keras backend, Python's own variables) needs a server started with it
(`import_time_key` tells which). Children of one server share its hash seed.

Example:
>>> with WarmStart(env) as server:
...     process = server.popen(["run_classifier.py", "--do_train", ...], cwd, env)
...     for line in process.stdout: ...
...     process.wait()
"""

import concurrent.futures
import json
import os
import signal
import socket
import subprocess
import sys
import threading

SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "warm_start_server.py")
# What the server's imports read from the environment (and Python's start-up variables).
IMPORT_TIME = ("KERAS_BACKEND", "KERAS_HOME", "TF_CPP_MIN_LOG_LEVEL", "TF_CPP_MAX_VLOG_LEVEL",
               "TF_ENABLE_ONEDNN_OPTS", "TF_USE_LEGACY_KERAS", "CUDA_VISIBLE_DEVICES")


def import_time_key(env):
    """What of `env` the server's imports read: commands with equal keys can share a server."""
    return tuple(sorted((k, v) for k, v in env.items() if k in IMPORT_TIME or k.startswith("PYTHON")))


class WarmStart:
    """One warm interpreter started with `env` (its stderr to `stderr`, a file object
    or None: inherited); thread-safe."""

    def __init__(self, env, stderr=None):
        self.key = import_time_key(env)
        self._streams, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self._process = subprocess.Popen(
            [sys.executable, SERVER, str(theirs.fileno())], cwd=os.path.dirname(os.path.dirname(SERVER)), env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, text=True, bufsize=1,
            pass_fds=(theirs.fileno(),))
        theirs.close()
        self.pid = self._process.pid
        self._lock = threading.Lock()
        self._next = 0
        self._started, self._ended = {}, {}
        threading.Thread(target=self._read, daemon=True).start()

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()

    def _read(self):
        for line in self._process.stdout:
            what, request, value = line.split()
            getattr(self, f"_{what}")[int(request)].set_result(int(value))
        with self._lock:  # the server ended: nothing more will come
            for futures in (self._started, self._ended):
                for future in futures.values():
                    if not future.done():
                        future.set_exception(RuntimeError(f"{SERVER} ended ({self._process.wait()})"))

    def start(self, argv, cwd, env, stdout, stderr, umask=None):
        """(pid, future of the return code) of a child running `python argv...` in
        `cwd` with `env`, its output to the file descriptors `stdout` and `stderr`
        (the caller's to close)."""
        if import_time_key(env) != self.key:
            raise ValueError(f"{SERVER} imported with {self.key}, not {import_time_key(env)}")
        with self._lock:
            if self._process.poll() is not None:
                raise RuntimeError(f"{SERVER} ended ({self._process.returncode})")
            request = self._next
            self._next += 1
            self._started[request] = concurrent.futures.Future()
            self._ended[request] = concurrent.futures.Future()
            self._process.stdin.write(json.dumps({"id": request, "argv": list(argv), "cwd": os.path.abspath(cwd),
                                                  "env": dict(env), "umask": umask}) + "\n")
            socket.send_fds(self._streams, [b"."], [stdout, stderr])
        return self._started[request].result(timeout=300), self._ended[request]

    def popen(self, argv, cwd, env):
        """A `WarmProcess` running `python argv...`, stdout and stderr together on its
        text stream `stdout`, as `subprocess.Popen(..., stdout=PIPE, stderr=STDOUT,
        text=True)` gives."""
        read, write = os.pipe()
        try:
            pid, ended = self.start(argv, cwd, env, write, write)
        except BaseException:
            os.close(read)
            raise
        finally:
            os.close(write)
        return WarmProcess(pid, ended, open(read, encoding="utf-8", errors="replace"))

    def close(self):
        """Ends the server; the children still running are killed."""
        if self._process.stdin and not self._process.stdin.closed:
            self._process.stdin.close()
        self._process.wait(timeout=60)
        self._streams.close()


class WarmProcess:
    """What `demo.progress` uses of a `subprocess.Popen`, for a child of a `WarmStart`."""

    def __init__(self, pid, ended, stdout):
        self.pid, self._ended, self.stdout = pid, ended, stdout
        self.returncode = None

    def poll(self):
        if self._ended.done():
            self.returncode = self._ended.result()
        return self.returncode

    def wait(self, timeout=None):
        self.returncode = self._ended.result(timeout=timeout)
        return self.returncode

    def kill(self):
        if not self._ended.done():
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
