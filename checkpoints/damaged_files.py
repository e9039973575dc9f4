"""Reading a checkpoint's files so that a damaged one is named: the libraries
that read them (numpy, h5py, safetensors, TensorFlow) say what is wrong ("Failed
to read all data for array", "truncated file: eof = ...") but not in which of a
checkpoint's files.

Example:
>>> with reading(shard, "a NumPy array"):
...     values = np.load(shard)
"""

import contextlib


class DamagedCheckpointFileError(ValueError):
    """A checkpoint file its library cannot read; names the file and the library's reason."""


@contextlib.contextmanager
def reading(path, kind):
    """Re-raises a library's failure to read `path` as `kind` (e.g. "an HDF5
    file") as `DamagedCheckpointFileError` naming it. A missing file (its
    error names it) and running out of memory are not damage: they pass."""
    try:
        yield
    except (FileNotFoundError, MemoryError):
        raise
    except Exception as e:  # each library has its own error types; the block holds only its call
        reason = " ".join(str(e).split()) or type(e).__name__
        raise DamagedCheckpointFileError(f"{path}: cannot be read as {kind}, damaged or cut short? "
                                         f"({reason})") from e
