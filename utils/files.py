"""Atomic file writes: a reader never sees half a file, a crash never leaves one.

What is written atomically ends with the modes a plain `open()` or `os.makedirs`
gives under the process's umask: `tempfile` creates its files 0600 and its
directories 0700, and a rename keeps them, so a model server running as another
user could not read an export.
"""

import contextlib
import json
import os
import tempfile


@contextlib.contextmanager
def atomic_output(path, mode="w", encoding="utf-8"):
    """Yields a temporary file next to `path`, hidden (`.<name>.<random>.tmp`, so
    that no glob over names like `path`'s matches it); renames it over `path`
    on success only."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": encoding})) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        give_default_modes(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def umask():
    """The process's umask. Read from /proc where there is one: `os.umask` reads it
    only by setting it, and a file another thread creates meanwhile would get the
    mode of the mask set for the moment."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def give_default_modes(path):
    """Gives the file `path`, or the directory `path` and everything in it, the
    modes a plain `open()` (0666) and `os.makedirs` (0777) give under the umask.
    Symbolic links are left alone."""
    mask = umask()
    file_mode, dir_mode = 0o666 & ~mask, 0o777 & ~mask
    if not os.path.isdir(path):
        os.chmod(path, file_mode)
        return
    for root, dirs, files in os.walk(path):
        os.chmod(root, dir_mode)
        for name in files:
            if not os.path.islink(os.path.join(root, name)):
                os.chmod(os.path.join(root, name), file_mode)


def new_file_mode():
    """Permissions of a file created with open(): 0o666 less the umask
    (atomic_output's temporary files start private)."""
    return 0o666 & ~umask()


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
