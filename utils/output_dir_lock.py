"""One run per output: an exclusive lock on `<output_dir>/.lock`, or for a data
writer on `<dir>/.<output_file name>.lock`.

Two runs writing the same directory interleave their checkpoints and results
(one run's `eval_results.txt` beside the other's weights), and both exit 0;
two data writers with the same `--output_file` rename their shards over each
other's. The lock is an `fcntl.flock` on a file that records the holder's pid
and host: the kernel drops it when the holder exits, however it exits, so the
lock of a dead run is simply taken over. A process may take the lock of a
directory it already holds (a runner that trains, then evaluates with a new
trainer); it keeps the lock until it exits. A data writer's lock is held for
the `with` block and its file removed after. Remote storage (gs://...) is not
locked.
"""

import contextlib
import fcntl
import os
import socket

from absl import logging

LOCK_FILE = ".lock"

_held = {}  # realpath of output_dir -> open lock file of this process


class OutputDirError(RuntimeError):
    """The output_dir (or output file) cannot be used by this run."""


def lock_output_dir(output_dir):
    """Creates `output_dir` if needed and takes its lock, or raises `OutputDirError`
    naming the process that holds it."""
    if "://" in output_dir:  # gs:// and the like: no flock there.
        logging.warning("output_dir %s is not on a local file system: not locked", output_dir)
        return
    key = os.path.realpath(output_dir)
    if key in _held:
        return
    if os.path.exists(output_dir) and not os.path.isdir(output_dir):
        raise OutputDirError(f"output_dir {output_dir!r} is a file, not a directory")
    try:
        os.makedirs(output_dir, exist_ok=True)
    except OSError as e:
        raise OutputDirError(f"output_dir {output_dir!r} cannot be created or written: {e}") from None
    _held[key] = _take(os.path.join(output_dir, LOCK_FILE), f"output_dir {output_dir!r}", "output_dir")


@contextlib.contextmanager
def output_file_lock(output_file):
    """Holds the lock of a data writer's `output_file` (the name its shards
    are numbered from) for the `with` block, or raises `OutputDirError`
    naming the process that holds it."""
    if "://" in output_file:
        logging.warning("output file %s is not on a local file system: not locked", output_file)
        yield
        return
    directory, name = os.path.split(os.path.abspath(output_file))
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise OutputDirError(f"output file {output_file!r} cannot be created: {e}") from None
    path = os.path.join(directory, f".{name}.lock")
    lock = _take(path, f"output file {output_file!r}", "--output_file")
    try:
        yield
    finally:
        os.unlink(path)  # before the unlock: a waiting writer then finds a new file
        lock.close()


def _take(path, what, other):
    """The open, locked lock file at `path`, taken over from an ended run;
    `what` names the output in errors, `other` what to change instead."""
    while True:
        try:
            lock = open(path, "a+", encoding="utf-8")
        except OSError as e:
            raise OutputDirError(f"{what} cannot be created or written: {e}") from None
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read(lock)
            lock.close()
            raise OutputDirError(
                f"{what} is in use by another run ({holder or 'unknown process'}, lock file {path}): "
                f"wait for it to finish or use another {other}") from None
        if _same_file(lock, path):
            break
        lock.close()  # removed by the run that held it while we opened it: take the new one
    previous = _read(lock)
    if previous:
        logging.info("Taking over the lock of %s from a run that has ended (%s)", what, previous)
    lock.seek(0)
    lock.truncate()
    lock.write(f"pid {os.getpid()} on {socket.gethostname()}\n")
    lock.flush()
    return lock


def _same_file(lock, path):
    try:
        return os.path.samestat(os.fstat(lock.fileno()), os.stat(path))
    except FileNotFoundError:
        return False


def _read(lock):
    lock.seek(0)
    return lock.read().strip()
