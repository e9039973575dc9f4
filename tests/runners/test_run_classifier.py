"""run_classifier.py end to end on a tiny random model: MNLI layout (three
labels, matched and mismatched dev and test files) fine-tuned for a few dozen
steps; loss falls and every output file is written and well-formed. Also the
regression path, prediction order and the learning-rate sweep without training.
"""

import os
import sys

import numpy as np
import pytest

from tasks.classification.glue_readers import GlueReader
from tasks.classification.task import ClassificationConfig, ClassificationTask
from tests import warm_python
from tests.conftest import FIXTURES, ROOT, logits_by_example
from tests.tiny_config import TINY_CONFIG
from training.fine_tuning import RunResult
from training.learning_rate_sweep import SWEEP_RESULTS, plan_runs, run_sweep

tf = pytest.importorskip("tensorflow")


def _train_losses(directory):
    """(step, loss) of the trainer's TensorBoard summaries."""
    losses = []
    for name in sorted(os.listdir(directory)):
        for record in tf.data.TFRecordDataset(os.path.join(directory, name)):
            event = tf.compat.v1.Event.FromString(record.numpy())
            for value in event.summary.value:
                if value.tag == "loss":
                    losses.append((event.step, float(tf.make_ndarray(value.tensor))))
    return sorted(losses)


def _read_results(path):
    with open(path, encoding="utf-8") as f:
        return {k: float(v) for k, v in (line.strip().split(" = ") for line in f)}


def test_fine_tunes_mnli_and_writes_every_output(tmp_path, uncased_vocab_file):
    config_file = tmp_path / "bert_config.json"
    TINY_CONFIG.to_json_file(str(config_file))
    output_dir = tmp_path / "out"
    command = [
        sys.executable, os.path.join(ROOT, "run_classifier.py"), "--task_name=MNLI",
        f"--data_dir={os.path.join(FIXTURES, 'glue_mnli')}", f"--vocab_file={uncased_vocab_file}",
        f"--bert_config_file={config_file}", "--do_train", "--do_eval", "--do_predict",
        "--max_seq_length=32", "--train_batch_size=10", "--eval_batch_size=16",
        "--predict_batch_size=16", "--learning_rate=3e-3", "--num_train_epochs=12",
        "--log_steps=6", "--save_checkpoints_steps=100", f"--output_dir={output_dir}"]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}
    done = warm_python.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]

    losses = _train_losses(output_dir / "train")
    assert [s for s, _ in losses] == [6, 12, 18, 24, 30, 36]
    assert losses[-1][1] < 0.8 * losses[0][1], losses

    results = _read_results(output_dir / "eval_results.txt")
    assert set(results) == {"eval_accuracy", "eval_loss", "eval_mismatched_accuracy",
                            "eval_mismatched_loss", "global_step", "loss", "prior_loss", "train_loss"}
    labels = GlueReader("MNLI", os.path.join(FIXTURES, "glue_mnli")).read("train").examples
    counts = np.unique([e.label for e in labels], return_counts=True)[1] / len(labels)
    assert results["prior_loss"] == pytest.approx(-(counts * np.log(counts)).sum(), rel=1e-9)
    assert results["train_loss"] < 0.9 * results["prior_loss"]
    assert results["global_step"] == 36 and results["loss"] == results["eval_loss"]
    assert all(0.0 <= results[k] <= 1.0 for k in ("eval_accuracy", "eval_mismatched_accuracy"))
    assert os.listdir(output_dir / "eval")  # TensorBoard summaries of the dev metrics
    assert tf.train.latest_checkpoint(str(output_dir)).endswith("ckpt-36")

    for name, rows in (("MNLI-m.tsv", 5), ("MNLI-mm.tsv", 4)):
        with open(output_dir / name, encoding="utf-8") as f:
            lines = f.read().splitlines()
        assert lines[0] == "index\tprediction" and len(lines) == rows + 1
        assert [line.split("\t")[0] for line in lines[1:]] == [str(i) for i in range(rows)]
        assert {line.split("\t")[1] for line in lines[1:]} <= {
            "contradiction", "entailment", "neutral"}


def test_an_export_dir_that_would_cost_the_run_is_refused_before_training(tmp_path, uncased_vocab_file):
    """`--export_dir` = `--output_dir`: one `error:` line at start, not an
    export at the end that replaces the run."""
    config_file = tmp_path / "bert_config.json"
    TINY_CONFIG.to_json_file(str(config_file))
    output_dir = tmp_path / "out"
    command = [
        sys.executable, os.path.join(ROOT, "run_classifier.py"), "--task_name=MNLI",
        f"--data_dir={os.path.join(FIXTURES, 'glue_mnli')}", f"--vocab_file={uncased_vocab_file}",
        f"--bert_config_file={config_file}", "--do_train", "--max_seq_length=32",
        "--train_batch_size=10", "--num_train_epochs=1", f"--output_dir={output_dir}",
        f"--export_dir={output_dir}"]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}
    done = warm_python.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr[-3000:]
    assert done.stderr.strip().splitlines()[-1] == (
        f"error: export directory {output_dir} is {output_dir}, the weights being exported: "
        "nothing written or deleted; export to another folder")
    assert not output_dir.exists()


@pytest.fixture()
def sts_task(tmp_path, uncased_vocab_file):
    return ClassificationTask(ClassificationConfig(
        reader=GlueReader("STS-B", os.path.join(FIXTURES, "glue_sts-b")),
        vocab_file=uncased_vocab_file, encoder_config=TINY_CONFIG,
        cache_dir=str(tmp_path), max_seq_length=24))


def test_regression_loss_metrics_and_prediction_order(sts_task, tmp_path):
    model = sts_task.build_model()
    features, labels = next(iter(sts_task.build_dataset("dev", 4, training=False)))
    outputs = model(features)
    assert outputs["logits"].shape == (2, 1)
    gold = np.array([5.0, 4.75])[labels["example_index"].numpy()]  # the dev file's scores
    np.testing.assert_allclose(sts_task.loss(labels, outputs).numpy(),
                               (outputs["logits"].numpy()[:, 0] - gold) ** 2, rtol=1e-5)
    # The streaming MSE averages over examples, not over batches of unequal size.
    mse = sts_task.build_metrics()[0]
    sts_task.update_metrics([mse], {"label": tf.constant([1.0, 2.0])},
                            {"logits": tf.constant([[1.0], [4.0]])})
    sts_task.update_metrics([mse], {"label": tf.constant([0.0])}, {"logits": tf.constant([[1.0]])})
    assert float(mse.result()) == pytest.approx((0 + 4 + 1) / 3)
    metrics = sts_task.evaluate({"label": np.array([5.0, 4.75, 1.0]),
                                 "logits": np.array([[4.0], [3.0], [2.5]])})
    assert set(metrics) == {"pearson", "spearman"}
    # Rows come back in file order whatever order the batches had.
    path, = sts_task.write_predictions("test", {"example_index": np.array([1, 0]),
                                                "logits": np.array([[1.25], [4.5]])},
                                       str(tmp_path))
    with open(path, encoding="utf-8") as f:
        assert f.read() == "index\tprediction\n0\t4.500\n1\t1.250\n"
    with pytest.raises(ValueError, match="training needs a label"):
        sts_task.build_dataset("test", 2, training=True)


def test_evaluation_batches_of_neighbouring_lengths_change_no_output(tmp_path, uncased_vocab_file):
    task = ClassificationTask(ClassificationConfig(
        reader=GlueReader("MNLI", os.path.join(FIXTURES, "glue_mnli")),
        vocab_file=uncased_vocab_file, encoder_config=TINY_CONFIG,
        cache_dir=str(tmp_path), max_seq_length=32))
    model = task.build_model()
    trimmed, widths = logits_by_example(task, model, "train", 4)
    task.config.trim_padding = False
    padded, full_widths = logits_by_example(task, model, "train", 4)
    assert sorted(trimmed) == sorted(padded) == list(range(30))
    assert full_widths == [32] * 8
    # One window of 50 batches covers the split: batches from shortest to longest.
    assert widths == sorted(widths) and widths[-1] < 32
    # Fewer tokens than the same batches in file order, each cut to its longest example.
    lengths = np.concatenate([f["input_mask"].numpy().sum(axis=1) for f, _ in
                              task.build_dataset("train", 4, training=False)])
    file_order = sum(len(lengths[i:i + 4]) * lengths[i:i + 4].max() for i in range(0, 30, 4))
    assert sum(4 * w for w in widths[:-1]) + 2 * widths[-1] < file_order
    for index in padded:
        np.testing.assert_allclose(trimmed[index], padded[index], atol=1e-5)


def test_group_by_length_cuts_padding_and_keeps_examples(tmp_path, uncased_vocab_file):
    def batches(group_by_length):
        task = ClassificationTask(ClassificationConfig(
            reader=GlueReader("MNLI", os.path.join(FIXTURES, "glue_mnli")),
            vocab_file=uncased_vocab_file, encoder_config=TINY_CONFIG,
            cache_dir=str(tmp_path), max_seq_length=32, group_by_length=group_by_length))
        dataset = task.build_dataset("train", 3, training=True)
        return [(f["input_word_ids"].shape[1], l["example_index"].numpy().tolist())
                for f, l in dataset.take(50)]

    plain, grouped = batches(False), batches(True)
    assert np.mean([w for w, _ in grouped]) < np.mean([w for w, _ in plain])
    assert sorted({i for _, ids in grouped for i in ids}) == list(range(30))


def test_sweep_keeps_the_best_run_on_dev(tmp_path):
    runs = plan_runs(str(tmp_path), [5e-5, 2e-5], 2, seed=1)
    scores = {(5e-5, 0): 0.70, (5e-5, 1): 0.81, (2e-5, 0): 0.78, (2e-5, 1): 0.80}

    def run_one(run):
        os.makedirs(run.output_dir)
        path = os.path.join(run.output_dir, "MRPC.tsv")
        with open(path, "w", encoding="utf-8") as f:
            f.write(f"from {run.learning_rate:g} {run.restart}\n")
        return RunResult({"eval_f1": scores[run.learning_rate, run.restart], "eval_accuracy": 0.5,
                          "train_loss": run.learning_rate, "prior_loss": 0.69}, [path])

    best, outcome = run_sweep(runs, run_one, lambda r: r["eval_f1"])
    assert (best.learning_rate, best.restart, best.seed) == (5e-5, 1, 2)
    with open(tmp_path / "MRPC.tsv", encoding="utf-8") as f:
        assert f.read() == "from 5e-05 1\n"
    with open(tmp_path / SWEEP_RESULTS, encoding="utf-8") as f:
        rows = [line.split("\t") for line in f.read().splitlines()]
    assert rows[0][:4] == ["learning_rate", "restart", "seed", "score"]
    assert [row[-1] for row in rows[1:]] == ["0", "1", "0", "0"]
    # Each run's trainability record beside its dev metrics.
    columns = [rows[0].index(name) for name in ("train_loss", "prior_loss")]
    assert [[row[i] for i in columns] for row in rows[1:]] == [
        [str(lr), "0.69"] for lr in (5e-5, 5e-5, 2e-5, 2e-5)]
