"""Writing SavedModel directories whole: a reader never sees half of one."""

import os
import shutil
import tempfile

import tensorflow as tf


def save_atomically(obj, export_dir, signatures=None, options=None, extra_files=None):
    """`tf.saved_model.save` into a temporary sibling directory, then renamed onto
    `export_dir` (replacing an older export). `extra_files` maps relative paths
    (e.g. `assets.extra/tf_serving_warmup_requests`) to bytes written beside."""
    export_dir = os.path.abspath(export_dir)
    parent = os.path.dirname(export_dir)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=os.path.basename(export_dir) + ".", suffix=".tmp", dir=parent)
    try:
        tf.saved_model.save(obj, staging, signatures=signatures, options=options)
        for relative, data in (extra_files or {}).items():
            path = os.path.join(staging, relative)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
        if os.path.exists(export_dir):
            old = staging + ".old"
            os.replace(export_dir, old)
            shutil.rmtree(old)
        os.replace(staging, export_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return export_dir
