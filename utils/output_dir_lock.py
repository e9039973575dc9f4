"""One run per output_dir: an exclusive lock on `<output_dir>/.lock`.

Two runs writing the same directory interleave their checkpoints and results
(one run's `eval_results.txt` beside the other's weights), and both exit 0.
The lock is an `fcntl.flock` on a file that records the holder's pid and host:
the kernel drops it when the holder exits, however it exits, so the lock of a
dead run is simply taken over. A process may take the lock of a directory it
already holds (a runner that trains, then evaluates with a new trainer); it
keeps the lock until it exits. Remote storage (gs://...) is not locked.
"""

import fcntl
import os
import socket

from absl import logging

LOCK_FILE = ".lock"

_held = {}  # realpath of output_dir -> open lock file of this process


class OutputDirError(RuntimeError):
    """The output_dir cannot be used by this run."""


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
        lock = open(os.path.join(output_dir, LOCK_FILE), "a+", encoding="utf-8")
    except OSError as e:
        raise OutputDirError(f"output_dir {output_dir!r} cannot be created or written: {e}") from None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _read(lock)
        lock.close()
        raise OutputDirError(
            f"output_dir {output_dir!r} is in use by another run ({holder or 'unknown process'}, "
            f"lock file {os.path.join(output_dir, LOCK_FILE)}): wait for it to finish or use "
            f"another output_dir") from None
    previous = _read(lock)
    if previous:
        logging.info("Taking over the lock of %s from a run that has ended (%s)",
                     output_dir, previous)
    lock.seek(0)
    lock.truncate()
    lock.write(f"pid {os.getpid()} on {socket.gethostname()}\n")
    lock.flush()
    _held[key] = lock


def _read(lock):
    lock.seek(0)
    return lock.read().strip()
