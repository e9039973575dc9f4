"""Writing SavedModel directories whole: a reader never sees half of one."""

import os
import shutil
import tempfile

import tensorflow as tf

from utils.files import give_default_modes


def save_atomically(obj, export_dir, signatures=None, write_extras=None):
    """`tf.saved_model.save` into a temporary sibling directory, then renamed onto
    `export_dir` (replacing an older export). `write_extras(staging_dir)` may add
    files (e.g. `assets.extra/`) before the rename. The folder and everything in
    it get the modes `os.makedirs` and `open()` give under the umask (TensorFlow
    makes its folders 0755 and copies assets 0644, whatever the umask)."""
    export_dir = os.path.abspath(export_dir)
    parent = os.path.dirname(export_dir)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=os.path.basename(export_dir) + ".", suffix=".tmp", dir=parent)
    try:
        tf.saved_model.save(obj, staging, signatures=signatures)
        if write_extras is not None:
            write_extras(staging)
        give_default_modes(staging)
        if os.path.exists(export_dir):
            old = staging + ".old"
            os.replace(export_dir, old)
            shutil.rmtree(old)
        os.replace(staging, export_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return export_dir
