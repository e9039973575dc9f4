"""Atomic file writes: a reader never sees half a file, a crash never leaves one."""

import contextlib
import json
import os
import tempfile


@contextlib.contextmanager
def atomic_output(path, mode="w", encoding="utf-8"):
    """Yields a temporary file next to `path`; renames it over `path` on success only."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": encoding})) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def new_file_mode():
    """Permissions of a file created with open(): 0o666 less the umask
    (atomic_output's temporary files start private)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write_text(path, text):
    with atomic_output(path) as f:
        f.write(text)


def atomic_write_bytes(path, data):
    with atomic_output(path, "wb") as f:
        f.write(data)


def read_json_object(path, error, missing="not found"):
    """The JSON object in `path`; raises `error` naming the file when it is
    missing (`missing` ends that message), not JSON, or not an object."""
    if not os.path.isfile(path):
        raise error(f"{path} {missing}")
    with open(path, encoding="utf-8") as f:
        try:
            values = json.load(f)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise error(f"{path}: not valid JSON ({e})") from None
    if not isinstance(values, dict):
        raise error(f"{path}: expected a JSON object")
    return values
