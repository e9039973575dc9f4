"""The shared training loop on a tiny pretraining task: accumulation, precision,
evaluation, prediction and the errors a user meets first."""

import json
import os
import sys

import numpy as np
import pytest
import tensorflow as tf

from checkpoints.loader import CheckpointMismatchError
from data.pretraining.corpus_reader import CorpusError
from data.pretraining.dataset import RecordLayoutError
from data.text.vocab import Vocab
from families.bert.pretraining.config import MaskingOptions
from families.bert.pretraining.task import PretrainingTask
from families.bert.pretraining.tf_masking import DynamicMasker
from tests import warm_python
from tests.conftest import ROOT
from tests.pretraining_records import TINY, write_records
from training.optimization import OptimizerConfig
from training.run_options import RunOptions
from training.trainer import Trainer, write_results
from utils.output_dir_lock import OutputDirError

NO_DROPOUT = TINY.replace(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
TINY_VOCAB = Vocab(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"t{i}" for i in range(95)])


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    return write_records(tmp_path_factory.mktemp("records") / "train.tfrecord")


def trainer(records, output_dir, config=NO_DROPOUT, **options):
    task = PretrainingTask(config, records, max_seq_length=16, max_predictions_per_seq=4)
    return Trainer(task, RunOptions(output_dir=str(output_dir), **options))


def weights(trainer_):
    return {v.path: v.numpy() for v in trainer_.model.weights}


# Two runs that differ only in float32 summation order are compared after a
# few updates. Adam's step m / (sqrt(v) + epsilon) changes by up to 0.1 / epsilon
# per unit change of a gradient near 0: with the default epsilon=1e-6 rounding
# differences of 1e-10 in tiny gradients reach the weights times lr * 1e5
# (1.6e-5 seen). With epsilon=1 >> sqrt(v) (at most sqrt(1 - beta_2) = 0.032 for
# gradients clipped to norm 1) the step is about 0.1 * g, linear in the gradient.
LINEAR_ADAM = OptimizerConfig(learning_rate=1.0, epsilon=1.0)
# Bound on the weight difference: gradients (norm <= 1) are float32 sums of a
# few hundred terms, off by at most ~200 * 2**-24 = 1.2e-5; two steps (learning
# rate 1, then 0.5) carry at most 0.15x that into the weights (1.8e-6), plus one
# float32 rounding per step of weights |w| <= 1.1 (2 * 2**-23 * 1.1 = 2.6e-7).
SUMMATION_ORDER_ATOL = 2e-6


def assert_same_weights(a, b):
    for path in a:
        np.testing.assert_allclose(a[path], b[path], rtol=0, atol=SUMMATION_ORDER_ATOL,
                                   err_msg=path)


@pytest.fixture(scope="module")
def two_plain_steps(records, tmp_path_factory):
    """(initial weights, weights after two steps of batch 8): the run that accumulation and XLA must equal."""
    plain = trainer(records, tmp_path_factory.mktemp("plain"))
    initial = weights(plain)
    plain.train(batch_size=8, num_steps=2, optimizer=LINEAR_ADAM)
    return initial, weights(plain)


def test_gradient_accumulation_equals_one_large_batch(records, two_plain_steps, tmp_path):
    """4 micro-batches of 2 give the update of one batch of 8 (clipping included)."""
    initial, whole = two_plain_steps
    accumulated = trainer(records, tmp_path / "accumulated", grad_accum_steps=4)
    accumulated.train(batch_size=8, num_steps=2, optimizer=LINEAR_ADAM)
    assert max(np.abs(whole[k] - initial[k]).max() for k in whole) > 1e-3  # Real updates.
    assert_same_weights(whole, weights(accumulated))


def test_xla_step_matches_the_plain_step(records, two_plain_steps, tmp_path):
    """Equal up to float32 summation order (oneDNN and XLA contract differently)."""
    xla = trainer(records, tmp_path / "xla", jit_compile=True)
    xla.train(batch_size=8, num_steps=2, optimizer=LINEAR_ADAM)
    assert_same_weights(two_plain_steps[1], weights(xla))


def test_steps_per_loop_and_a_resume_at_its_boundary_change_nothing(records, tmp_path):
    """Four updates in one call of the train loop give one call per update's
    weights and logs bit for bit, and so does that run resumed from its step-2
    checkpoint in calls of two (as if killed between the saves at steps 2 and 4)."""
    def train(name, steps_per_loop, save_checkpoints_steps):
        run = trainer(records, tmp_path / name, steps_per_loop=steps_per_loop, log_steps=4,
                      save_checkpoints_steps=save_checkpoints_steps)
        logs = run.train(batch_size=8, num_steps=4, optimizer=OptimizerConfig())
        return weights(run), [{k: v for k, v in r.items() if k != "examples_per_second"}
                              for r in logs]

    one_per_call, logs = train("one_per_call", 1, 2)
    four_per_call, four_logs = train("four_per_call", 4, 4)  # no save or log before step 4 to cut the call
    # A log's mean loss is summed in float32 inside one call and in float64 across calls: apart by
    # at most the three float32 roundings of the partial sums (each up to four times the mean, so
    # half a unit of it is at most 2^-22 of the mean). Seen: 1.2e-7 on 5.3 on an Intel Xeon.
    assert four_logs == [{k: pytest.approx(v, rel=3 * 2.0 ** -22, abs=0) for k, v in r.items()} for r in logs]
    for path in (tmp_path / "one_per_call").glob("ckpt-4.*"):
        path.unlink()
    resumed, _ = train("one_per_call", 2, 2)  # a new trainer: a restarted process
    for name, run in [("four_per_call", four_per_call), ("resumed", resumed)]:
        for path, value in one_per_call.items():
            np.testing.assert_array_equal(run[path], value, err_msg=f"{name}: {path}")


def test_train_loss_is_the_mean_of_the_last_tenth_and_survives_a_resume(records, tmp_path):
    """20 steps: `train_loss` is the mean of the last two steps' logged losses;
    a run killed after step 19 (its ckpt-20 lost) and resumed, and a run started
    again once trained, report the same, from the record in the checkpoint."""
    def train(name, **options):
        run = trainer(records, tmp_path / name, log_steps=1, **options)
        logs = run.train(batch_size=8, num_steps=20, optimizer=OptimizerConfig(learning_rate=1e-3))
        return run.train_loss(), logs

    assert trainer(records, tmp_path / "new").train_loss() is None
    whole, logs = train("run", save_checkpoints_steps=19)
    assert [r["step"] for r in logs] == list(range(1, 21))
    assert whole == pytest.approx((logs[-2]["loss"] + logs[-1]["loss"]) / 2, rel=1e-6)
    assert "task_loss" not in logs[-1]  # a pretraining loss has nothing beside the task's
    for path in (tmp_path / "run").glob("ckpt-20.*"):
        path.unlink()
    resumed, resumed_logs = train("run")
    assert [r["step"] for r in resumed_logs] == [20]
    assert resumed == pytest.approx(whole, rel=1e-6)
    again, again_logs = train("run")
    assert again_logs == [] and again == resumed


def test_fp16_trains_with_loss_scaling_and_evaluates(records, tmp_path):
    run = trainer(records, tmp_path, mixed_precision="fp16", log_steps=2)
    assert run.model.get_layer("masked_lm").compute_dtype == "float16"
    assert run.model.weights[0].dtype == "float32"
    logs = run.train(batch_size=8, num_steps=4, optimizer=OptimizerConfig(learning_rate=1e-3))
    assert [r["step"] for r in logs] == [2, 4]
    assert all(np.isfinite(r["loss"]) for r in logs)
    assert {"masked_lm_accuracy", "next_sentence_accuracy", "learning_rate",
            "examples_per_second"} <= set(logs[0])
    results = run.evaluate(batch_size=8, max_steps=2)
    assert set(results) == {"loss", "masked_lm_accuracy", "masked_lm_loss",
                            "next_sentence_accuracy", "next_sentence_loss", "global_step"}
    assert results["global_step"] == 4
    # A second trainer on the same output_dir evaluates the saved weights.
    again = trainer(records, tmp_path, mixed_precision="fp16").evaluate(batch_size=8, max_steps=2)
    assert again["loss"] == pytest.approx(results["loss"], rel=1e-5)
    write_results(str(tmp_path / "eval_results.txt"), results)
    lines = (tmp_path / "eval_results.txt").read_text().splitlines()
    assert lines[0].startswith("global_step = 4") and lines[1].startswith("loss = ")


def test_bf16_trains_every_layer(records, tmp_path):
    """bf16 compute (GELU fused by XLA on TF): gradients reach the layers below the FFN."""
    run = trainer(records, tmp_path, mixed_precision="bf16", log_steps=2)
    assert run.model.get_layer("masked_lm").compute_dtype == "bfloat16"
    before = weights(run)
    logs = run.train(batch_size=8, num_steps=2, optimizer=OptimizerConfig(learning_rate=1e-2))
    assert all(np.isfinite(r["loss"]) for r in logs)
    after = weights(run)
    below_gelu = [p for p in before if "word_embeddings" in p or "intermediate" in p]
    assert len(below_gelu) >= 3, list(before)
    assert not [p for p in below_gelu if np.array_equal(before[p], after[p])]


def test_predict_gathers_outputs_and_labels_in_order(records, tmp_path):
    predictions = trainer(records, tmp_path).predict(batch_size=8, split="dev")
    assert predictions["mlm_logits"].shape == (64, 4, TINY.vocab_size)
    assert predictions["nsp_logits"].shape == (64, 2)
    first = next(iter(tf.data.TFRecordDataset(records))).numpy()
    labels = tf.train.Example.FromString(first).features.feature["masked_lm_ids"].int64_list.value
    np.testing.assert_array_equal(predictions["masked_lm_ids"][0], labels)


def test_one_trainer_evaluates_at_any_batch_size(records, tmp_path):
    """The inference step traced for one batch size runs others (its input
    signature relaxes); the loss is the same mean over the same 64 examples."""
    run = trainer(records, tmp_path)
    losses = [run.evaluate(batch_size=size)["loss"] for size in (8, 5, 3, 8)]
    # The same float32 forward on batches of other sizes: a few ulps per value.
    assert losses == pytest.approx([losses[0]] * 4, rel=1e-5)


def inference(records, output_dir, **options):
    """Evaluation results and predictions in batches of 5 rows (over two
    replicas, each batch is padded to 6 and sliced 3 + 3)."""
    run = trainer(records, output_dir, **options)
    predictions = run.predict(batch_size=5, split="dev")
    return {"results": run.evaluate(batch_size=5),
            **{name: predictions[name].tolist() for name in ("nsp_logits", "masked_lm_ids")}}


# Two replicas need two logical CPUs, set before TensorFlow starts: a process of their own.
MIRRORED_INFERENCE = """
import json, sys
import tensorflow as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
from tests.training.test_trainer import inference
print(json.dumps(inference(sys.argv[1], sys.argv[2], distribution_strategy="mirrored")))
"""


@pytest.mark.slow
def test_mirrored_replicas_evaluate_and_predict_every_example_once(records, tmp_path):
    """Two replicas, each with its slice of every batch: one device's metrics and
    predictions, in file order."""
    one_device = inference(records, tmp_path / "one")
    done = warm_python.run([sys.executable, "-c", MIRRORED_INFERENCE, records, str(tmp_path / "two")],
                           cwd=ROOT, env={**os.environ, "CUDA_VISIBLE_DEVICES": ""},
                           capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    mirrored = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(mirrored["nsp_logits"]) == 64
    np.testing.assert_array_equal(mirrored["masked_lm_ids"], one_device["masked_lm_ids"])
    # The same float32 forward on 3 rows instead of 5: kernels may block their
    # sums differently, a few ulps apart; means over 64 examples add as much again.
    np.testing.assert_allclose(mirrored["nsp_logits"], one_device["nsp_logits"], rtol=1e-5, atol=1e-6)
    for name, value in one_device["results"].items():
        assert mirrored["results"][name] == pytest.approx(value, rel=1e-5), name


def test_checkpoints_are_kept_up_to_the_limit(records, tmp_path):
    run = trainer(records, tmp_path, save_checkpoints_steps=1, keep_checkpoint_max=2)
    run.train(batch_size=8, num_steps=4, optimizer=OptimizerConfig())
    assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".index")) == [
        "ckpt-3.index", "ckpt-4.index"]
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("ckpt-4")
    # Already at num_steps: nothing to do, nothing breaks.
    assert trainer(records, tmp_path).train(8, 4, OptimizerConfig()) == []
    # Another input pipeline cannot take the saved input position: a clear error.
    task = PretrainingTask(NO_DROPOUT, records, 16, 4, dynamic_masker=DynamicMasker(
        TINY_VOCAB, MaskingOptions(max_predictions_per_seq=4)))
    with pytest.raises(ValueError, match="does not fit this run.*--init_checkpoint="):
        Trainer(task, RunOptions(output_dir=str(tmp_path))).train(8, 6, OptimizerConfig())


@pytest.mark.parametrize("change,message", [
    ({"skip": ["masked_lm_weights"]}, "'masked_lm_weights' is missing"),
    ({"widths": {"input_ids": 12}}, r"'input_ids' has 12 values, expected 16 \(--max_seq_length=16\)"),
    ({"widths": {"masked_lm_positions": 3}}, r"'masked_lm_positions' has 3 values, expected 4 \(--max_predictions_per_seq=4\)"),
    ({"nsp": False}, "'next_sentence_labels' is missing"),
])
def test_bad_records_are_named(tmp_path, change, message):
    path = write_records(tmp_path / "bad.tfrecord", count=2, **change)
    task = PretrainingTask(TINY, path, max_seq_length=16, max_predictions_per_seq=4)
    with pytest.raises(RecordLayoutError, match=f"bad.tfrecord: feature {message}"):
        task.build_dataset("train", 2, training=True)


def test_input_glob_that_matches_nothing(tmp_path):
    with pytest.raises(CorpusError, match="not found"):
        PretrainingTask(TINY, str(tmp_path / "*.tfrecord"), 16, 4)


def test_non_writable_output_dir_fails_before_any_work(records, tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(OutputDirError, match="cannot be created or written"):
        trainer(records, tmp_path / "file" / "out")


def test_init_checkpoint_of_another_config_is_a_clear_error(records, tmp_path):
    trainer(records, tmp_path / "small").train(8, 1, OptimizerConfig())
    wider = TINY.replace(hidden_size=48, num_attention_heads=2)
    task = PretrainingTask(wider, records, 16, 4, init_checkpoint=str(tmp_path / "small"))
    run = Trainer(task, RunOptions(output_dir=str(tmp_path / "wider")))
    with pytest.raises(CheckpointMismatchError, match="embeddings.*shape"):
        run.train(8, 1, OptimizerConfig())
    assert not os.path.exists(tmp_path / "wider" / "checkpoint")


def test_dynamic_masking_remasks_training_batches_only(records):
    masker = DynamicMasker(TINY_VOCAB, MaskingOptions(max_predictions_per_seq=4))
    static = PretrainingTask(TINY, records, 16, 4)
    dynamic = PretrainingTask(TINY, records, 16, 4, dynamic_masker=masker)

    def originals(features, labels):
        ids = features["input_word_ids"].numpy().copy()
        valid = labels["masked_lm_weights"].numpy() > 0
        for row, (positions, ids_) in enumerate(zip(features["masked_lm_positions"].numpy(),
                                                    labels["masked_lm_ids"].numpy())):
            ids[row, positions[valid[row]]] = ids_[valid[row]]
        return ids

    for training in (True, False):
        a, b = (next(iter(task.build_dataset("train", 8, training=training)))
                for task in (static, dynamic))
        # Same examples in the same order; the masks differ only when training.
        np.testing.assert_array_equal(originals(*a), originals(*b))
        same = np.array_equal(a[0]["masked_lm_positions"], b[0]["masked_lm_positions"])
        assert same != training
