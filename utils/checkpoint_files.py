"""The checkpoints in an output_dir: which to resume from, and what interrupted
saves left behind.

`tf.train.latest_checkpoint` trusts the `checkpoint` state file: when the
newest checkpoint it names is gone, it logs an error and returns None, and a
resumed run would start over from step 0 and overwrite the intact older
checkpoints. Here every checkpoint on disk is a candidate, newest first; one
that is missing or damaged is skipped with a log line saying why, and when
checkpoints exist but none can be read, the run stops instead of starting over.
"""

import os
import re

import tensorflow as tf
from absl import logging


class CheckpointDamagedError(RuntimeError):
    """Checkpoints exist in the output_dir and none of them can be read."""


def checkpoint_prefixes(directory, name):
    """Prefixes `<directory>/<name>-<step>` of every checkpoint the state file
    lists or whose index file is present, highest step first."""
    pattern = re.compile(rf"{re.escape(name)}-(\d+)")
    prefixes = {path[:-len(".index")]
                for path in tf.io.gfile.glob(os.path.join(directory, f"{name}-*.index"))}
    state = tf.train.get_checkpoint_state(directory)
    if state is not None:
        prefixes.update(state.all_model_checkpoint_paths)
        if state.model_checkpoint_path:
            prefixes.add(state.model_checkpoint_path)
    steps = {}
    for prefix in prefixes:
        match = pattern.fullmatch(os.path.basename(prefix))
        if match:
            steps[os.path.join(directory, os.path.basename(prefix))] = int(match.group(1))
    return sorted(steps, key=steps.get, reverse=True)


def damage(prefix):
    """Why the checkpoint at `prefix` cannot be read (naming the file), or None
    when every tensor in it reads back."""
    index = prefix + ".index"
    if not tf.io.gfile.exists(index):
        return f"{index} is missing"
    try:
        dtypes = tf.train.load_checkpoint(prefix).get_variable_to_dtype_map()
    except (tf.errors.OpError, ValueError, IndexError) as e:
        return f"{index} cannot be read ({_first_line(e)})"
    shards = tf.io.gfile.glob(prefix + ".data-*-of-*")
    if shards:
        expected = int(shards[0].rsplit("-of-", 1)[1])
        missing = [f"{prefix}.data-{i:05d}-of-{expected:05d}" for i in range(expected)
                   if not tf.io.gfile.exists(f"{prefix}.data-{i:05d}-of-{expected:05d}")]
        if missing:
            return f"{missing[0]} is missing"
    data = ", ".join(sorted(shards)) or f"{prefix}.data-*"
    # One tensor at a time (RestoreV2 reads variants too, such as the input
    # pipeline's state): bounded memory, and the damaged tensor is named.
    for tensor, dtype in sorted(dtypes.items()):
        try:
            tf.raw_ops.RestoreV2(prefix=prefix, tensor_names=[tensor], shape_and_slices=[""],
                                 dtypes=[dtype])
        except (tf.errors.OpError, IndexError) as e:
            return f"{data} cannot be read at {tensor} ({_first_line(e)})"
    return None


def restore_newest(directory, name, restore):
    """Calls `restore(prefix)` on the newest checkpoint that restores and returns
    its prefix; None when there is no checkpoint.

    A checkpoint that fails to restore because its files are missing or
    damaged is skipped with a warning naming it; any other failure (one that
    does not fit this run) propagates. When every checkpoint is damaged,
    raises `CheckpointDamagedError` rather than letting the run start over.
    """
    skipped = []
    for prefix in checkpoint_prefixes(directory, name):
        try:
            restore(prefix)
        except Exception:
            reason = damage(prefix)
            if reason is None:
                raise
            logging.warning("Skipping checkpoint %s: %s", prefix, reason)
            skipped.append(f"{prefix}: {reason}")
            continue
        if skipped:
            logging.warning("Resumed from %s, an older checkpoint than the %d skipped",
                            prefix, len(skipped))
        return prefix
    if skipped:
        raise CheckpointDamagedError(
            f"none of the checkpoints in {directory} can be restored, and training will not "
            f"start over while they exist:\n  " + "\n  ".join(skipped) + "\nMove them away (or "
            f"use a new output_dir) to start from scratch.")
    return None


def name_newest(directory, name, prefix):
    """Makes the `checkpoint` state file name `prefix` (the checkpoint a resumed run
    restored) as the newest, listing the older ones on disk. A save killed after its
    files but before the state file leaves a checkpoint the run resumes from but that
    readers trusting the state file (`tf.train.latest_checkpoint`, an
    `--init_checkpoint` of the directory) do not see; a run already at its last step
    saves nothing more, so without this the directory would stay unreadable."""
    state = tf.train.get_checkpoint_state(directory)
    if state is not None and os.path.basename(state.model_checkpoint_path) == os.path.basename(prefix):
        return
    prefixes = checkpoint_prefixes(directory, name)
    kept = [os.path.basename(p) for p in reversed(prefixes[prefixes.index(prefix):])]
    logging.info("Naming %s in %s's checkpoint state (an interrupted save left it out)", kept[-1], directory)
    tf.compat.v1.train.update_checkpoint_state(directory, kept[-1], all_model_checkpoint_paths=kept)


def remove_temporary_saves(directory, name):
    """Deletes `<name>-<step>_temp/` directories that a save interrupted by a kill or
    a full disk left (TensorFlow writes the shards there, then merges them)."""
    if not tf.io.gfile.isdir(directory):
        return
    pattern = re.compile(rf"{re.escape(name)}-\d+_temp")
    for entry in tf.io.gfile.listdir(directory):
        path = os.path.join(directory, entry.rstrip("/"))
        if pattern.fullmatch(entry.rstrip("/")) and tf.io.gfile.isdir(path):
            logging.info("Removing %s, left by an interrupted save", path)
            tf.io.gfile.rmtree(path)


def _first_line(error):
    message = error.message if isinstance(error, tf.errors.OpError) else str(error)
    lines = message.strip().splitlines()
    return lines[0] if lines else type(error).__name__
