"""run_swag.py end to end on the SWAG fixture with a tiny random-init model:
loss falls under the shared trainer, eval_results.txt and predictions well-formed."""

import json
import math
import os
import shutil
import sys

import pytest

from tasks.multiple_choice.task import MultipleChoiceConfig, MultipleChoiceTask
from tests import warm_python
from tests.conftest import FIXTURES, ROOT
from tests.runners.xlnet_release import write_xlnet_release
from tests.tiny_config import TINY_CONFIG
from training.optimization import OptimizerConfig
from training.run_options import RunOptions
from training.trainer import Trainer


@pytest.fixture
def data_dir(tmp_path):
    directory = tmp_path / "swag"
    directory.mkdir()
    for source, name in (("swag_train.csv", "train.csv"), ("swag_train.csv", "val.csv"),
                         ("swag_test.csv", "test.csv")):
        shutil.copy(os.path.join(FIXTURES, source), directory / name)
    return str(directory)


def test_loss_falls_on_the_fixture(data_dir, tmp_path, uncased_vocab_file):
    task = MultipleChoiceTask(MultipleChoiceConfig(
        data_dir=data_dir, vocab_file=uncased_vocab_file, encoder_config=TINY_CONFIG, max_seq_length=32))
    trainer = Trainer(task, RunOptions(output_dir=str(tmp_path / "run"), log_steps=1,
                                       save_checkpoints_steps=100, seed=1))
    records = trainer.train(8, 20, OptimizerConfig(learning_rate=1e-3, weight_decay_rate=0.0))
    first, last = records[0]["loss"], records[-1]["loss"]
    assert first == pytest.approx(1.386, abs=0.05)  # log(4): untrained, uniform over 4 choices
    assert last < 0.6 * first
    assert trainer.evaluate(8)["accuracy"] == 1.0


def test_run_swag_writes_results_and_predictions(data_dir, tmp_path, uncased_vocab_file):
    config_file = tmp_path / "bert_config.json"
    TINY_CONFIG.to_json_file(str(config_file))
    output_dir = tmp_path / "out"
    argv = [sys.executable, os.path.join(ROOT, "run_swag.py"), f"--data_dir={data_dir}",
            f"--vocab_file={uncased_vocab_file}",
            f"--bert_config_file={config_file}", f"--output_dir={output_dir}",
            "--do_train", "--do_eval", "--do_predict", "--max_seq_length=32",
            "--train_batch_size=4", "--num_train_epochs=1", "--learning_rate=1e-3",
            f"--export_dir={tmp_path / 'serving'}"]
    warm_python.run(argv, check=True, cwd=ROOT, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})

    with open(output_dir / "eval_results.txt", encoding="utf-8") as f:
        results = dict(line.rstrip("\n").split(" = ") for line in f)
    assert sorted(results) == ["eval_accuracy", "eval_loss", "global_step", "prior_loss", "train_loss"]
    assert float(results["prior_loss"]) == pytest.approx(math.log(4), rel=1e-12)  # two of each label
    assert 0.0 <= float(results["eval_accuracy"]) <= 1.0 and float(results["eval_loss"]) > 0
    assert results["global_step"] == "2"  # 8 examples / batch 4 x 1 epoch

    with open(output_dir / "test_predictions.jsonl", encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    assert [r["id"] for r in records] == ["4201", "4202", "4203"]
    for record in records:
        assert len(record["probabilities"]) == 4
        assert sum(record["probabilities"]) == pytest.approx(1.0, abs=1e-5)
        assert record["prediction"] == max(range(4), key=record["probabilities"].__getitem__)
    assert (output_dir / "export_meta.json").exists()
    assert (tmp_path / "serving" / "saved_model.pb").exists()


def test_run_swag_fine_tunes_xlnet_from_its_config_file(data_dir, tmp_path):
    """XLNet from `--bert_config_file=xlnet_config.json` and `--spiece_model_file`
    (no checkpoint: random init): trains, evaluates, exports with its family and
    the lower-casing asked for (XLNet's default is cased)."""
    release = os.path.dirname(write_xlnet_release(tmp_path / "xlnet"))
    output_dir = tmp_path / "out"
    argv = [sys.executable, os.path.join(ROOT, "run_swag.py"), f"--data_dir={data_dir}",
            f"--spiece_model_file={os.path.join(release, 'spiece.model')}",
            f"--bert_config_file={os.path.join(release, 'xlnet_config.json')}",
            f"--output_dir={output_dir}", "--do_lower_case", "--do_train", "--do_eval",
            "--max_seq_length=32", "--train_batch_size=4", "--num_train_epochs=1", "--learning_rate=1e-3"]
    warm_python.run(argv, check=True, cwd=ROOT, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})

    with open(output_dir / "eval_results.txt", encoding="utf-8") as f:
        results = dict(line.rstrip("\n").split(" = ") for line in f)
    assert sorted(results) == ["eval_accuracy", "eval_loss", "global_step", "prior_loss", "train_loss"]
    assert float(results["prior_loss"]) == pytest.approx(math.log(4), rel=1e-12)  # two of each label
    assert results["global_step"] == "2"  # 8 examples / batch 4 x 1 epoch
    assert 0.0 <= float(results["eval_accuracy"]) <= 1.0 and float(results["eval_loss"]) > 0
    with open(output_dir / "export_meta.json", encoding="utf-8") as f:
        meta = json.load(f)
    assert meta["encoder_family"] == "xlnet" and meta["do_lower_case"] is True
    assert (output_dir / "spiece.model").exists()
