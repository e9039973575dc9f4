"""The XLNet pretraining task: its loss is the mean cross-entropy over each
example's targets, the trainer carries its memory from step to step as two
manual steps do, and a few hundred steps on a small corpus bring the held-out
permutation-LM loss well below a unigram model's."""

import json
import logging
import os
import pathlib
import shutil
import sys

import numpy as np
import pytest
import tensorflow as tf

from checkpoints.loader import load_into
from data.pretraining.writer import write_pretraining_data
from families.xlnet.checkpoints.tf1_names import xlnet_tf1_name
from families.xlnet.config import XLNetConfig
from families.xlnet.pretraining.chunks import XLNetChunkProcessor
from families.xlnet.pretraining.config import XLNetDataConfig
from families.xlnet.pretraining.task import XLNetPretrainingTask
from modeling.encoder_interface import build_encoder
from tasks.classification.model import SequenceClassifier
from tests import warm_python
from tests.conftest import ROOT, assert_resumed_values, checkpoint_values
from tests.families.xlnet.corpus import build_spiece, write_corpus
from training.optimization import OptimizerConfig
from training.run_options import RunOptions
from training.trainer import Trainer

SEQ_LEN, REUSE_LEN, PERM_SIZE, NUM_PREDICT, BATCH, MEM_LEN = 32, 16, 8, 6, 8, 24
CONFIG = XLNetConfig.from_preset("xlnet_tiny").replace(bi_data=True, dropout=0.0, dropatt=0.0)
# Updates linear in the gradient (Adam with epsilon >> sqrt(v)), so float32
# summation-order differences in the gradients stay at their own size in the weights.
LINEAR_ADAM = OptimizerConfig(learning_rate=1.0, epsilon=1.0)


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """Train and held-out records (different documents) of the same kind of text."""
    d = tmp_path_factory.mktemp("xlnet_task")
    spiece = build_spiece(d)
    data_config = XLNetDataConfig(seq_len=SEQ_LEN, reuse_len=REUSE_LEN, bsz_per_host=BATCH,
                                  num_predict=NUM_PREDICT, bi_data=True)
    paths = {}
    for split, documents, seed in (("train", 300, 1), ("dev", 60, 2)):
        paths[split] = str(d / f"{split}.tfrecord")
        write_pretraining_data(write_corpus(d / f"{split}.txt", documents, seed), [paths[split]], spiece,
                               data_config, processor_class=XLNetChunkProcessor, log_every_seconds=1e9)
    return paths


def task(path, seed, config=CONFIG):
    return XLNetPretrainingTask(config, path, SEQ_LEN, REUSE_LEN, PERM_SIZE, NUM_PREDICT, seed=seed)


def step_losses(path, config, output_dir, num_steps, **options):
    """(initial weights, weights after the run, its per-step losses) of a trainer run."""
    run = Trainer(task(path, 1, config), RunOptions(
        output_dir=str(output_dir), mixed_precision="none", log_steps=1, **options))
    initial = run.model.get_weights()
    records = run.train(BATCH, num_steps, LINEAR_ADAM)
    return initial, run.model.get_weights(), [r["loss"] for r in records]


def targets(path):
    """Every target id of one pass over `path`."""
    batches = task(path, 2).build_dataset("dev", BATCH, training=False)
    return np.concatenate([labels["target"].numpy()[labels["target_mask"].numpy() > 0] for _, labels in batches])


def test_loss_is_the_mean_cross_entropy_over_each_examples_targets(records):
    t = task(records["dev"], 2)
    features, labels = next(iter(t.build_dataset("dev", BATCH, training=False)))
    logits = t.build_model()(features)["lm_logits"].numpy()
    log_probs = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    picked = -np.take_along_axis(log_probs, labels["target"].numpy()[..., None], -1)[..., 0]
    weights = labels["target_mask"].numpy()
    expected = (picked * weights).sum(1) / weights.sum(1)
    np.testing.assert_allclose(t.loss(labels, {"lm_logits": tf.constant(logits)}), expected, rtol=1e-5)


@pytest.mark.slow
def test_pretraining_beats_a_unigram_model_on_held_out_targets(records, tmp_path):
    train_ids, dev_ids = targets(records["train"]), targets(records["dev"])
    counts = np.bincount(train_ids, minlength=CONFIG.n_token) + 1.0  # add-one smoothing
    unigram_loss = -np.log(counts[dev_ids] / counts.sum()).mean()
    options = RunOptions(output_dir=str(tmp_path), mixed_precision="none", log_steps=100,
                         save_checkpoints_steps=1000)
    Trainer(task(records["train"], 1), options).train(
        BATCH, 300, OptimizerConfig(learning_rate=2e-3, num_warmup_steps=20))
    results = Trainer(task(records["dev"], 2), options).evaluate(BATCH)  # from the last checkpoint
    # Measured: unigram 3.41 nats, the model 2.2 (accuracy 0.43).
    assert results["lm_loss"] < 0.9 * unigram_loss, (results, unigram_loss)
    assert results["lm_accuracy"] > np.bincount(dev_ids).max() / len(dev_ids)


def test_a_pretraining_checkpoint_starts_a_fine_tuning_model(records, tmp_path):
    """The trainer's checkpoint names the pretrainer's layers (`transformer`, `lm_loss`);
    read by TF1 name, every backbone weight reaches a classifier's encoder, whose
    layers are named otherwise, and only the fine-tuning head is left to initialise."""
    run = Trainer(task(records["train"], 1), RunOptions(output_dir=str(tmp_path), mixed_precision="none",
                                                        log_steps=1, save_checkpoints_steps=1))
    run.train(BATCH, 1, LINEAR_ADAM)
    classifier = SequenceClassifier(build_encoder(CONFIG), num_classes=2)
    report = load_into(classifier, str(tmp_path))
    assert report.format == "trainer" and report.unused == ["model/lm_loss/bias"]
    assert sorted(report.missing) == sorted(v.path for v in classifier.weights
                                            if xlnet_tf1_name(v.path) is None
                                            or "sequnece_summary" in xlnet_tf1_name(v.path)[0])
    pretrained = {xlnet_tf1_name(v.path)[0]: v.numpy() for v in run.model.weights}
    loaded = [v for v in classifier.encoder.weights if v.path in report.loaded]
    assert len(loaded) == len(pretrained) - 1  # all but the LM head's bias
    for variable in loaded:
        np.testing.assert_array_equal(variable.numpy(), pretrained[xlnet_tf1_name(variable.path)[0]])


@pytest.mark.parametrize("mem_len", [MEM_LEN, 0])
def test_memory_carried_across_two_trainer_steps_equals_two_manual_steps(records, tmp_path, mem_len):
    """Step 2's loss is the step-1 weights on batch 2 with the memory that the
    initial weights left from batch 1 (zero memory before it); mem_len=0 carries nothing."""
    # Weights wide enough that attention depends on what it sees (at 0.02 the
    # memory moves the loss by 2e-5 only).
    config = CONFIG.replace(mem_len=mem_len, initializer_range=0.2)
    initial, _, losses = step_losses(records["train"], config, tmp_path / "two", 2)
    _, after_one, _ = step_losses(records["train"], config, tmp_path / "one", 1)
    t = task(records["train"], 1, config)
    assert (t.initial_state(BATCH) is None) == (mem_len == 0)
    (features1, labels1), (features2, labels2) = t.build_dataset("train", BATCH, training=True).take(2)
    model = t.build_model()
    model.set_weights(initial)
    outputs1, mems = t.forward(model, features1, t.initial_state(BATCH), training=True)
    model.set_weights(after_one)
    outputs2, _ = t.forward(model, features2, mems, training=True)
    expected = [float(np.mean(t.loss(labels1, outputs1))), float(np.mean(t.loss(labels2, outputs2)))]
    # Same weights and batches; float32 arithmetic (the trainer sums per-example losses).
    np.testing.assert_allclose(losses, expected, rtol=1e-5)
    if mem_len:
        assert [m.shape for m in mems] == [(BATCH, MEM_LEN, CONFIG.d_model)] * CONFIG.n_layer
        without_memory = float(np.mean(t.loss(labels2, model(features2, training=True))))
        assert abs(without_memory - expected[1]) > 1e-2  # The memory mattered (0.07 seen).
    else:
        assert mems is None and set(outputs1) == {"lm_logits"}


def test_gradient_accumulation_keeps_each_micro_batchs_memory(records, tmp_path):
    """Micro-batches of 4 rows, each with its rows' memory: the losses and
    weights of whole batches of 8 (bi_data off: its halves follow the micro-batch)."""
    config = CONFIG.replace(mem_len=MEM_LEN, bi_data=False)
    _, whole, whole_losses = step_losses(records["train"], config, tmp_path / "whole", 3)
    _, accumulated, accumulated_losses = step_losses(records["train"], config, tmp_path / "accum", 3,
                                                     grad_accum_steps=2)
    # Summation order only (see LINEAR_ADAM): float32 rounding of ~1e-7 relative.
    np.testing.assert_allclose(accumulated_losses, whole_losses, rtol=1e-5)
    for a, b in zip(accumulated, whole):
        np.testing.assert_allclose(a, b, rtol=0, atol=2e-6)


def resumed_from_step_2(output_dir, run):
    """Checkpoint values of `run()` (4 steps, saving at 2 and 4) rerun in `output_dir`
    after its ckpt-4 is deleted, as if killed between the saves."""
    for checkpoint_file in pathlib.Path(output_dir).glob("ckpt-4.*"):
        checkpoint_file.unlink()
    run()
    return checkpoint_values(output_dir)


def resumed_and_straight(output_dir, run):
    """`resumed_from_step_2` of a first `run()`, and that first run's checkpoint values."""
    run()
    straight = checkpoint_values(output_dir)
    return resumed_from_step_2(output_dir, run), straight


def test_a_resumed_run_continues_its_memory_as_if_uninterrupted(records, tmp_path):
    """The memory is saved with the checkpoint (from zeros the weights differ by 4.7e-3)."""
    config = CONFIG.replace(mem_len=MEM_LEN, initializer_range=0.2)
    resumed, straight = resumed_and_straight(tmp_path, lambda: step_losses(
        records["train"], config, tmp_path, 4, save_checkpoints_steps=2))
    assert_resumed_values(resumed, straight, "state/")


def test_a_checkpoint_without_memory_resumes_from_zero_memory(records, tmp_path, caplog):
    """As a checkpoint written before the memory was saved (or with mem_len=0)."""
    step_losses(records["train"], CONFIG, tmp_path, 2, save_checkpoints_steps=2)
    with caplog.at_level(logging.INFO, logger="absl"):
        step_losses(records["train"], CONFIG.replace(mem_len=MEM_LEN), tmp_path, 3)
    assert ("holds no state carried from step to step (XLNet's memory): it restarts from its "
            "initial value at step 2") in caplog.text


# Two replicas need two logical CPUs, set before TensorFlow starts: a process of their own.
TWO_REPLICAS = """
import json, sys
import tensorflow as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
from tests.families.xlnet.pretraining import test_task as module
print(json.dumps(getattr(module, sys.argv[1])(*sys.argv[2:])))
"""
# Two replicas x two micro-batches of 2 rows.
MIRRORED_CONFIG = CONFIG.replace(mem_len=MEM_LEN, bi_data=False, initializer_range=0.2)
MIRRORED = {"distribution_strategy": "mirrored", "grad_accum_steps": 2}


def with_two_replicas(function, *args):
    """`function(*args)` (JSON-valued) run in a process with two CPU replicas."""
    done = warm_python.run([sys.executable, "-c", TWO_REPLICAS, function.__name__, *map(str, args)],
                           cwd=ROOT, env={**os.environ, "CUDA_VISIBLE_DEVICES": ""},
                           capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def mirrored_run(path, output_dir):
    """The run `resumed_from_step_2` resumes (4 steps, saves at 2 and 4), on two replicas; its per-step losses."""
    return step_losses(path, MIRRORED_CONFIG, output_dir, 4, save_checkpoints_steps=2, **MIRRORED)[2]


@pytest.fixture(scope="module")
def mirrored_straight(records, tmp_path_factory):
    """(output_dir, per-step losses, checkpoint values) of one two-replica run uninterrupted."""
    output_dir = tmp_path_factory.mktemp("mirrored")
    losses = with_two_replicas(mirrored_run, records["train"], output_dir)
    return output_dir, losses, checkpoint_values(output_dir)


@pytest.mark.slow
def test_mirrored_replicas_each_carry_their_rows_memory(records, mirrored_straight, tmp_path):
    """The losses of one device with batches of 8 (the same 4 steps: the learning rate decays over them)."""
    one_device = step_losses(records["train"], MIRRORED_CONFIG, tmp_path / "one", 4, save_checkpoints_steps=2)[2]
    np.testing.assert_allclose(mirrored_straight[1], one_device, rtol=1e-5)  # summation order only


@pytest.mark.slow
def test_mirrored_replicas_each_resume_their_rows_memory(records, mirrored_straight, tmp_path):
    """Each replica's and micro-batch's memory goes back to its rows at a resume.
    A process per run, as in use: two MirroredStrategy objects in one process
    share collective keys, and the memory's gather at a restore met those of the first."""
    output_dir = shutil.copytree(mirrored_straight[0], tmp_path / "run")
    resumed = resumed_from_step_2(output_dir, lambda: with_two_replicas(mirrored_run, records["train"], output_dir))
    assert_resumed_values(resumed, mirrored_straight[2], "state/")
