"""Writing SavedModel directories whole: a reader never sees half of one, and
an export replaces only an earlier export (`export.export_dir`)."""

import os
import shutil
import tempfile

import tensorflow as tf

from export.export_dir import check_replaceable, write_marker
from utils.files import give_default_modes


def save_atomically(obj, export_dir, signatures=None, write_extras=None, facts=None):
    """`tf.saved_model.save` into a hidden temporary folder beside `export_dir`
    (`.<name>.<random>.tmp`: neither a TF Serving version nor a match of a glob
    over the exports), marked as an export, then renamed onto `export_dir`,
    which must be absent, empty or an earlier export (else ExportDirError, and
    nothing is written). `write_extras(staging_dir)` may add files (e.g.
    `assets.extra/`) before the rename; `facts` go into the export's mark
    (`export_dir.write_marker`). The folder and everything in it get
    the modes `os.makedirs` and `open()` give under the umask (TensorFlow makes
    its folders 0755 and copies assets 0644, whatever the umask)."""
    export_dir = os.path.realpath(export_dir)
    check_replaceable(export_dir)
    parent, name = os.path.split(export_dir)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=f".{name}.", suffix=".tmp", dir=parent)
    try:
        tf.saved_model.save(obj, staging, signatures=signatures)
        if write_extras is not None:
            write_extras(staging)
        write_marker(staging, facts)
        give_default_modes(staging)
        check_replaceable(export_dir)  # again: the save took a while
        if os.path.lexists(export_dir):
            _remove_aside(export_dir, parent, name)
        os.replace(staging, export_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return export_dir


def _remove_aside(path, parent, name):
    """Removes the earlier export (or empty folder) `path`, renamed first into a
    folder of its own so that the removal never meets a name in use."""
    trash = tempfile.mkdtemp(prefix=f".{name}.", suffix=".old", dir=parent)
    try:
        os.replace(path, os.path.join(trash, name))
    finally:
        shutil.rmtree(trash)
