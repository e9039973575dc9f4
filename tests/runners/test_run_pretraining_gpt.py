"""`run_pretraining.py --model=gpt` on records of `create_gpt_pretraining_data.py`:
it trains, evaluates, resumes as if it had not stopped, and refuses records
written with other settings, naming both values, shards its records' metadata
does not list, an output_dir another run holds, and an --init_checkpoint of
another family, each in one `error:` line."""

import os
import shutil
import socket
import sys

import pytest

from checkpoints.ours import save_weights
from families import registry
from tests.conftest import ROOT, assert_resumed_values, checkpoint_values, process_holding_lock
from tests.families.gpt.kit import ENCODER_FILE
from tests.families.elmo.kit import tiny_config as elmo_config
from tests.families.gpt.pretraining.corpus import CONFIG
from tests.families.xlnet.corpus import write_corpus
from tests.runners.test_run_pretraining import fails, read_results, run
from tests.utils.test_output_dir_lock import HOLD


@pytest.fixture(scope="module")
def gpt_setup(tmp_path_factory):
    """Windows of 32 tokens in two shards, written by the command line, and
    gpt_tiny over the tests' BPE with its three special rows (which
    pretraining leaves out) and dropout."""
    root = tmp_path_factory.mktemp("gpt_pretraining")
    records = str(root / "gpt.tfrecord")
    log = run([sys.executable, os.path.join(ROOT, "create_gpt_pretraining_data.py"),
               f"--input_file={write_corpus(root / 'corpus.txt', 40)}", f"--output_file={records}",
               f"--vocab_file={ENCODER_FILE}", "--max_seq_length=32", "--output_shards=2", "--original_tokenizer"])
    assert f"{records}-00001-of-00002: " in log
    config = str(root / "gpt_config.json")
    CONFIG.for_fine_tuning().to_json_file(config)
    return {"records": f"{records}-*", "config": config}


def gpt_command(gpt_setup, output_dir, *extra):
    return [sys.executable, os.path.join(ROOT, "run_pretraining.py"), "--model=gpt",
            f"--input_file={gpt_setup['records']}", f"--output_dir={output_dir}",
            f"--bert_config_file={gpt_setup['config']}", f"--vocab_file={ENCODER_FILE}", "--max_seq_length=32",
            "--train_batch_size=4", "--eval_batch_size=4", "--optimizer=adam", "--learning_rate_schedule=cosine",
            "--num_warmup_steps=2", "--learning_rate=1e-3", "--mixed_precision=none", *extra]


@pytest.mark.slow
def test_gpt_trains_evaluates_and_resumes_as_if_uninterrupted(gpt_setup, tmp_path):
    """Dropout on, shuffled windows: after the last checkpoint is lost, the
    rerun resumes from the one before and ends with every checkpointed value
    (weights, Adam's moments, step, dropout RNG) bit-identical. Slow: two runs
    of the command line, which a resume needs."""
    out = tmp_path / "run"
    args = gpt_command(gpt_setup, out, "--do_train", "--num_train_steps=6", "--save_checkpoints_steps=3",
                       "--log_steps=3", "--keep_checkpoint_max=3")
    log = run(args + ["--do_eval", "--max_eval_steps=3"])
    assert "step 3: loss = " in log and "perplexity = " in log
    results = read_results(out / "eval_results.txt")
    assert set(results) == {"global_step", "loss", "lm_accuracy", "lm_loss", "perplexity"}
    assert results["global_step"] == "6"
    assert '"n_special": 0' in (out / "gpt_config.json").read_text()
    assert any(name.startswith("events.") for name in os.listdir(out / "train"))
    straight = checkpoint_values(out)
    for path in out.glob("ckpt-6.*"):
        path.unlink()
    assert "(step 3)" in run(args)
    assert_resumed_values(checkpoint_values(out), straight, "optimizer/")


def test_gpt_refuses_records_of_another_length_naming_both(gpt_setup, tmp_path):
    stderr = fails([a if a != "--max_seq_length=32" else "--max_seq_length=16"
                    for a in gpt_command(gpt_setup, tmp_path, "--do_train", "--num_train_steps=1")])
    records = gpt_setup["records"].replace("-*", "-00000-of-00002")
    metadata = os.path.join(os.path.dirname(records), ".gpt.tfrecord.metadata.json")
    assert f"error: --max_seq_length=16 but {records} was written with max_seq_length=32 ({metadata})" in stderr
    assert "Traceback" not in stderr


def test_gpt_refuses_an_output_dir_another_run_holds_in_one_line(gpt_setup, tmp_path):
    with process_holding_lock(HOLD, tmp_path / "out") as holder:
        stderr = fails(gpt_command(gpt_setup, tmp_path / "out", "--do_train", "--num_train_steps=1"))
    assert stderr.strip().splitlines()[-1].startswith(
        f"error: output_dir '{tmp_path / 'out'}' is in use by another run (pid {holder.pid} on "
        f"{socket.gethostname()}"), stderr[-2000:]
    assert "Traceback" not in stderr


def test_gpt_refuses_a_shard_its_records_metadata_does_not_list(gpt_setup, tmp_path):
    """A shard of an earlier three-shard write beside the two its metadata lists."""
    records = tmp_path / "records"
    shutil.copytree(os.path.dirname(gpt_setup["records"]), records)
    stale = records / "gpt.tfrecord-00002-of-00003"
    shutil.copy(records / "gpt.tfrecord-00000-of-00002", stale)
    stderr = fails(gpt_command({**gpt_setup, "records": f"{records}/gpt.tfrecord-*"}, tmp_path / "out",
                               "--do_train", "--num_train_steps=1"))
    assert stderr.strip().splitlines()[-1] == (
        f"error: {stale}: not among the 2 files that {records}/.gpt.tfrecord.metadata.json lists, the last "
        f"write of {records}/gpt.tfrecord: left by an earlier write (another --output_shards) or an "
        "interrupted one; rewrite the output, which removes them, or leave them out of --input_file")
    assert "Traceback" not in stderr


def test_gpt_refuses_an_init_checkpoint_of_another_family_in_one_line(gpt_setup, tmp_path):
    elmo = registry.family("elmo")
    save_weights(elmo.build_encoder(elmo_config()), str(tmp_path / "ours"))
    weights = str(tmp_path / "elmo")
    elmo.convert(str(tmp_path / "ours"), weights, "hdf5", elmo_config())
    stderr = fails(gpt_command(gpt_setup, tmp_path / "run", "--do_train", "--num_train_steps=1",
                               f"--init_checkpoint={weights}"))
    assert stderr.strip().splitlines()[-1] == (
        f"error: {weights}: a checkpoint of the ELMo family (elmo_hdf5), but the config is of the OpenAI GPT "
        "family (gpt_config.json): give a checkpoint and a config of one family")
    assert "Traceback" not in stderr
