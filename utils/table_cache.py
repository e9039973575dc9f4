"""Tables the graph tokenizers compute in Python from the very functions they
mirror (`unicodedata`, `str.lower`, ftfy, spaCy's rules), kept on disk from
one process to the next. Computing them cost every process that built a graph
tokenizer seconds (GPT's: 7.7 s, BERT's 2.5 s on a 2-core AMD EPYC), and they
change only with the code and the library versions that compute them.

A table is stored under a digest of everything it is computed from: the
function's name, Python's version and Unicode data, the versions of the
packages it names, numpy's, and the source of the project folders it names
(an edit there computes it afresh, and the table's older files are removed).
The folder is $BERT_GARDEN_CACHE, else $XDG_CACHE_HOME/bert_garden, else
~/.cache/bert_garden; files are pickles this module wrote (read them from a
folder only you can write). Where the folder cannot be written or a file
cannot be read, the table is computed as before.
"""

import contextlib
import functools
import glob
import hashlib
import importlib.metadata
import os
import pickle
import sys
import unicodedata

from utils.files import atomic_output

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cache_dir():
    explicit = os.environ.get("BERT_GARDEN_CACHE")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "bert_garden")


@functools.cache
def _sources_digest(folders):
    """sha256 of every .py file under `folders` (relative to the repository root), in path order."""
    digest = hashlib.sha256()
    for folder in folders:
        for parent, _, files in sorted(os.walk(os.path.join(ROOT, folder))):
            for name in sorted(f for f in files if f.endswith(".py")):
                path = os.path.join(parent, name)
                digest.update(os.path.relpath(path, ROOT).encode())
                with open(path, "rb") as f:
                    digest.update(hashlib.sha256(f.read()).digest())
    return digest.hexdigest()


def table_path(fn, folders, packages):
    """The table's file: its name, then the digest of what it is computed from."""
    versions = [f"{name}={importlib.metadata.version(name)}" for name in ("numpy", *packages)]
    key = "\n".join([_table_name(fn), sys.version, unicodedata.unidata_version, *versions,
                     _sources_digest(tuple(folders))])
    return os.path.join(cache_dir(), f"{_table_name(fn)}-{hashlib.sha256(key.encode()).hexdigest()[:24]}.pickle")


def _table_name(fn):
    return f"{fn.__module__}.{fn.__qualname__}"


def _remove_older(path, fn):
    """The table's files of other digests (same name, 24 hex digits, .pickle)."""
    pattern = glob.escape(_table_name(fn)) + "-" + "[0-9a-f]" * 24 + ".pickle"
    for old in glob.glob(os.path.join(glob.escape(os.path.dirname(path)), pattern)):
        if old != path:
            with contextlib.suppress(OSError):
                os.unlink(old)


def disk_cached(folders, packages=()):
    """Decorator of a function of no arguments: its value read from the cache
    when there, else computed and written there (atomically)."""
    def decorate(fn):
        @functools.wraps(fn)
        def cached():
            path = table_path(fn, folders, packages)
            try:
                with open(path, "rb") as f:
                    return pickle.load(f)
            except Exception:  # pylint: disable=broad-except  # absent or unreadable: compute it
                pass
            value = fn()
            try:
                with atomic_output(path, "wb") as f:
                    pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
                _remove_older(path, fn)
            except OSError:
                pass
            return value
        return cached
    return decorate
