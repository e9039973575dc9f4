"""Resuming when the newest checkpoint is gone or damaged: fall back to an older
one (saying which and why), never start over while checkpoints exist, and clear
what interrupted saves left."""

import glob
import hashlib
import logging
import os
import shutil

import numpy as np
import pytest

from families.bert.pretraining.task import PretrainingTask
from tests.pretraining_records import TINY, write_records
from training.optimization import OptimizerConfig
from training.run_options import RunOptions
from training.trainer import Trainer
from utils.checkpoint_files import CheckpointDamagedError

NO_DROPOUT = TINY.replace(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
OPTIMIZER = OptimizerConfig(learning_rate=1e-2)


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    return write_records(tmp_path_factory.mktemp("records") / "train.tfrecord")


def trainer(records, output_dir):
    task = PretrainingTask(NO_DROPOUT, records, max_seq_length=16, max_predictions_per_seq=4)
    return Trainer(task, RunOptions(output_dir=str(output_dir), save_checkpoints_steps=2))


def weights(run):
    return {v.path: v.numpy() for v in run.model.weights}


def digests(output_dir, step):
    return {path: hashlib.sha256(open(path, "rb").read()).hexdigest()
            for path in glob.glob(os.path.join(output_dir, f"ckpt-{step}.*"))}


@pytest.fixture(scope="module")
def trained_once(records, tmp_path_factory):
    output_dir = tmp_path_factory.mktemp("trained")
    run = trainer(records, output_dir)
    run.train(batch_size=8, num_steps=4, optimizer=OPTIMIZER)
    return output_dir, weights(run)


@pytest.fixture()
def trained(trained_once, tmp_path):
    """A copy of one output_dir with ckpt-2 and ckpt-4 (each test damages its own), and the weights at step 4."""
    output_dir, final = trained_once
    return shutil.copytree(output_dir, tmp_path / "run"), final


def data_file(output_dir, step):
    (path,) = glob.glob(os.path.join(output_dir, f"ckpt-{step}.data-*"))
    return path


def truncate(path):
    os.truncate(path, os.path.getsize(path) // 2)


def resume(records, output_dir, caplog):
    """Reruns the same command; returns the trainer, with the log captured."""
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="absl"):
        run = trainer(records, output_dir)
        run.train(batch_size=8, num_steps=4, optimizer=OPTIMIZER)
    return run


def test_missing_newest_checkpoint_resumes_from_the_previous_one(records, trained, caplog):
    output_dir, final = trained
    older = digests(output_dir, 2)
    for path in glob.glob(os.path.join(output_dir, "ckpt-4.*")):
        os.remove(path)
    run = resume(records, output_dir, caplog)
    assert f"Skipping checkpoint {output_dir / 'ckpt-4'}: {output_dir / 'ckpt-4.index'} is missing" \
        in caplog.text
    assert f"Restored {output_dir / 'ckpt-2'} (step 2)" in caplog.text
    assert "Training from step 2 to 4" in caplog.text
    assert digests(output_dir, 2) == older  # The intact older checkpoint is untouched.
    # Steps 3 and 4 redone from ckpt-2 give the weights the first run ended with.
    got = weights(run)
    for path in final:
        np.testing.assert_array_equal(got[path], final[path], err_msg=path)


def test_truncated_newest_checkpoint_is_named_and_skipped(records, trained, caplog):
    output_dir, _ = trained
    damaged = data_file(output_dir, 4)
    truncate(damaged)
    resume(records, output_dir, caplog)
    assert f"Skipping checkpoint {output_dir / 'ckpt-4'}: {damaged} cannot be read at" in caplog.text
    assert f"Restored {output_dir / 'ckpt-2'} (step 2)" in caplog.text


def test_every_checkpoint_damaged_stops_instead_of_starting_over(records, trained):
    output_dir, _ = trained
    for step in (2, 4):
        truncate(data_file(output_dir, step))
    before = {step: digests(output_dir, step) for step in (2, 4)}
    with pytest.raises(CheckpointDamagedError) as error:
        trainer(records, output_dir).train(batch_size=8, num_steps=4, optimizer=OPTIMIZER)
    message = str(error.value)
    assert "will not start over" in message
    assert data_file(output_dir, 4) in message and data_file(output_dir, 2) in message
    assert {step: digests(output_dir, step) for step in (2, 4)} == before


def test_leftover_temporary_saves_are_removed_on_start(records, tmp_path):
    leftover = tmp_path / "ckpt-7_temp"
    leftover.mkdir()
    (leftover / "part-00000-of-00001.data-00000-of-00001").write_bytes(b"\0" * 1024)
    unrelated = tmp_path / "notes_temp"
    unrelated.mkdir()
    trainer(records, tmp_path)
    assert not leftover.exists()
    assert unrelated.exists()


@pytest.mark.parametrize("state", ["missing", "older"])
def test_a_save_killed_before_its_state_file_is_named_there_by_the_rerun(records, trained, caplog, state):
    """The tiny comparison's killed run left ckpt-4's files without the `checkpoint` state file; the
    rerun, already at its last step, saved nothing, and the held-out scoring of the directory found no
    checkpoint. Now the rerun names the checkpoint it resumed from, and readers see it."""
    import tensorflow as tf
    output_dir, final = trained
    os.remove(os.path.join(output_dir, "checkpoint"))
    if state == "older":  # the state file of the save before
        tf.compat.v1.train.update_checkpoint_state(str(output_dir), "ckpt-2", all_model_checkpoint_paths=["ckpt-2"])
    before = tf.train.latest_checkpoint(str(output_dir))
    assert before is None if state == "missing" else before.endswith("ckpt-2")
    resume(records, output_dir, caplog)
    assert "Already trained to step 4 of 4" in caplog.text
    assert tf.train.latest_checkpoint(str(output_dir)) == os.path.join(str(output_dir), "ckpt-4")
    listed = tf.train.get_checkpoint_state(str(output_dir)).all_model_checkpoint_paths
    assert [os.path.basename(p) for p in listed] == ["ckpt-2", "ckpt-4"]
    with open(os.path.join(output_dir, "checkpoint"), encoding="utf-8") as f:
        assert 'model_checkpoint_path: "ckpt-4"' in f.read()  # relative: the folder can move
