"""`run_pretraining.py` end to end: eval_results.txt, two-phase training, and a
run killed with SIGKILL that resumes as if it had never stopped."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import tensorflow as tf

from tests import warm_python
from tests.conftest import ROOT, assert_resumed_values, checkpoint_values
from tests.pretraining_records import TINY, write_records

TIMEOUT_S = 600
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("pretraining")
    TINY.to_json_file(str(root / "bert_config.json"))
    return {"root": root, "config": str(root / "bert_config.json"),
            "seq16": write_records(root / "seq16.tfrecord", count=32, seq_length=16),
            "seq32": write_records(root / "seq32.tfrecord", count=32, seq_length=32, seed=1)}


def command(setup, output_dir, records, seq, *extra):
    return [sys.executable, os.path.join(ROOT, "run_pretraining.py"), f"--input_file={records}",
            f"--output_dir={output_dir}", f"--bert_config_file={setup['config']}",
            "--train_batch_size=4", "--eval_batch_size=4", f"--max_seq_length={seq}",
            "--max_predictions_per_seq=4", "--num_warmup_steps=2", "--learning_rate=1e-3",
            *extra]


def run(args):
    done = warm_python.run(args, env=ENV, capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return done.stderr


def fails(args):
    """stderr of a run that must stop with an error."""
    done = warm_python.run(args, env=ENV, capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode != 0
    return done.stderr


def read_results(path):
    return dict(line.split(" = ") for line in open(path).read().splitlines())


@pytest.fixture(scope="module")
def phase1(setup, tmp_path_factory):
    """Phase one: 3 steps at sequence 16, evaluated; what phase two starts from."""
    phase1 = tmp_path_factory.mktemp("phase1")
    run(command(setup, phase1, setup["seq16"], 16, "--do_train", "--do_eval",
                "--num_train_steps=3", "--max_eval_steps=2"))
    return phase1


def test_phase_two_on_packed_rows_starts_from_phase_one_at_a_longer_length(setup, phase1, tmp_path):
    from families.bert.commands.pack_pretraining_data import pack_pretraining_files
    results = read_results(phase1 / "eval_results.txt")
    assert set(results) == {"global_step", "loss", "masked_lm_accuracy", "masked_lm_loss",
                            "next_sentence_accuracy", "next_sentence_loss"}
    assert results["global_step"] == "3"
    assert 0.0 <= float(results["masked_lm_accuracy"]) <= 1.0
    assert (phase1 / "bert_config.json").exists()

    phase2 = tmp_path / "phase2"
    packed = str(tmp_path / "packed32.tfrecord")
    pack_pretraining_files(setup["seq32"], packed, 32, 4, max_sequences_per_pack=3)
    log = run(command(setup, phase2, packed, 32, "--do_train", "--do_eval", "--num_train_steps=2",
                      "--max_eval_steps=2", "--max_sequences_per_pack=3",
                      f"--init_checkpoint={phase1}"))
    # Every weight, position embeddings included, comes from phase 1; step and optimizer restart.
    assert "variables from trainer checkpoint" in log
    assert "not in checkpoint" not in log
    results = read_results(phase2 / "eval_results.txt")
    assert results["global_step"] == "2" and np.isfinite(float(results["next_sentence_loss"]))


@pytest.mark.slow
def test_sigkill_then_restart_continues_as_if_uninterrupted(setup, tmp_path):
    """Dropout on, shuffled input: equal final weights need the model, optimizer,
    step, dropout RNG and input position all restored."""
    steps = 120
    args = lambda out: command(setup, out, setup["seq16"], 16, "--do_train",  # noqa: E731
                               f"--num_train_steps={steps}", "--save_checkpoints_steps=10",
                               "--log_steps=10", "--keep_checkpoint_max=2")
    straight, killed = tmp_path / "straight", tmp_path / "killed"
    reference = subprocess.Popen(args(straight), env=ENV, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
    victim = subprocess.Popen(args(killed), env=ENV, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + TIMEOUT_S
        while tf.train.latest_checkpoint(str(killed)) is None and victim.poll() is None:
            assert time.time() < deadline, "no checkpoint appeared"
            time.sleep(0.05)
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        assert reference.wait(timeout=TIMEOUT_S) == 0
    finally:
        for p in (reference, victim):
            if p.poll() is None:
                p.kill()
                p.wait()
    interrupted_at = int(tf.train.latest_checkpoint(str(killed)).rsplit("-", 1)[1])
    assert interrupted_at < steps, "the run finished before it could be killed"

    log = run(args(killed))
    assert f"(step {interrupted_at})" in log
    assert_resumed_values(checkpoint_values(killed), checkpoint_values(straight), "rng/")


@pytest.fixture(scope="module")
def xlnet_setup(tmp_path_factory):
    """XLNet records (seq_len 32, reuse_len 16, bsz_per_host 4, bi_data) and an XLNet-tiny config."""
    from data.pretraining.writer import write_pretraining_data
    from families.xlnet.pretraining.chunks import XLNetChunkProcessor
    from families.xlnet.pretraining.config import XLNetDataConfig
    from families.xlnet.config import XLNetConfig
    from tests.families.xlnet.corpus import build_spiece, write_corpus
    root = tmp_path_factory.mktemp("xlnet_pretraining")
    records, spiece = str(root / "xlnet.tfrecord"), build_spiece(root)
    write_pretraining_data(write_corpus(root / "corpus.txt", 40), [records], spiece,
                           XLNetDataConfig(seq_len=32, reuse_len=16, bsz_per_host=4, num_predict=6),
                           processor_class=XLNetChunkProcessor, log_every_seconds=1e9)
    XLNetConfig.from_preset("xlnet_tiny").to_json_file(str(root / "xlnet_config.json"))
    return {"records": records, "config": str(root / "xlnet_config.json"), "spiece": spiece}


def xlnet_command(xlnet_setup, output_dir, *extra):
    return [sys.executable, os.path.join(ROOT, "run_pretraining.py"), "--model=xlnet",
            f"--input_file={xlnet_setup['records']}", f"--output_dir={output_dir}",
            f"--xlnet_config_file={xlnet_setup['config']}", "--train_batch_size=4",
            "--eval_batch_size=4", "--seq_len=32", "--reuse_len=16", "--perm_size=8", "--num_predict=6",
            "--num_warmup_steps=2", "--learning_rate=1e-3", "--mixed_precision=none", *extra]


@pytest.fixture(scope="module")
def xlnet_run(xlnet_setup, tmp_path_factory):
    """Six steps with dropout on and a memory (`--mem_len`), saved at 3 and 6, then
    evaluated; then resumed as if killed between the saves (its last checkpoint
    deleted, the command run again). Equal final values need the model,
    optimizer, step, dropout RNG, the input position (so the permutations) and
    the memory restored. (output_dir, first log, first run's checkpointed
    values, resumed log)."""
    output_dir = tmp_path_factory.mktemp("xlnet_run")
    args = lambda *extra: xlnet_command(xlnet_setup, output_dir, "--do_train", "--num_train_steps=6",  # noqa: E731
                                        "--mem_len=24", "--save_checkpoints_steps=3", "--log_steps=3", *extra)
    log = run(args("--do_eval", "--max_eval_steps=2"))
    straight = checkpoint_values(output_dir)
    for path in output_dir.glob("ckpt-6.*"):
        path.unlink()
    return output_dir, log, straight, run(args())


def test_xlnet_trains_and_evaluates(xlnet_run):
    output_dir, log, _, _ = xlnet_run
    assert "step 3: loss = " in log and "lm_accuracy = " in log
    results = read_results(output_dir / "eval_results.txt")
    assert set(results) == {"global_step", "loss", "lm_accuracy", "lm_loss"} and results["global_step"] == "6"
    written = (output_dir / "xlnet_config.json").read_text()
    assert '"bi_data": true' in written and '"mem_len": 24' in written and '"reuse_len": 16' in written


def test_xlnet_resumes_as_if_uninterrupted_its_memory_and_dropout_rng_included(xlnet_run):
    output_dir, _, straight, resumed_log = xlnet_run
    assert "(step 3)" in resumed_log
    resumed = checkpoint_values(output_dir)
    assert any(name.startswith("state/") for name in resumed)  # the memory
    assert_resumed_values(resumed, straight, "rng/")


def test_xlnet_refuses_a_missing_config_and_batches_without_backward_halves(xlnet_setup, tmp_path):
    no_config = [a for a in xlnet_command(xlnet_setup, tmp_path / "a", "--do_train") if "xlnet_config_file" not in a]
    assert "--xlnet_config_file or --preset" in fails(no_config)
    odd_slices = xlnet_command(xlnet_setup, tmp_path / "b", "--do_train", "--grad_accum_steps=2")
    odd_slices[odd_slices.index("--train_batch_size=4")] = "--train_batch_size=6"
    assert "each of the 2 slices" in fails(odd_slices)
    odd_eval = xlnet_command(xlnet_setup, tmp_path / "c", "--do_eval")
    odd_eval[odd_eval.index("--eval_batch_size=4")] = "--eval_batch_size=5"
    assert "--eval_batch_size=5 does not split" in fails(odd_eval)


@pytest.mark.parametrize("flag, message", [
    ("--num_predict=5", "--num_predict=5 but {records} was written with num_predict=6"),
    ("--train_batch_size=8", "--train_batch_size=8 but {records} was written with bsz_per_host=4"),
    ("--nobi_data", "--bi_data=false but {records} was written with bi_data=true")],
    ids=["num_predict", "batch_size", "bi_data"])
def test_xlnet_refuses_flags_its_records_were_not_written_with(xlnet_setup, tmp_path, flag, message):
    args = [a for a in xlnet_command(xlnet_setup, tmp_path, "--do_train", "--num_train_steps=1")
            if a.split("=")[0] != flag.split("=")[0]] + [flag]
    stderr = fails(args)
    assert "error: " + message.format(records=xlnet_setup["records"]) in stderr, stderr[-2000:]
    assert "Traceback" not in stderr


def test_xlnet_vocabulary_is_checked_at_set_up_however_late_an_id_comes(xlnet_setup, tmp_path):
    """Ids past n_token only after record 256: the first chunk's stream repeats
    a few words, the second's has every word of the corpus."""
    from data.pretraining.record_statistics import read_examples
    from data.pretraining.records_metadata import read_metadata
    from data.pretraining.writer import write_pretraining_data
    from families.xlnet.pretraining.chunks import XLNetChunkProcessor
    from families.xlnet.pretraining.config import XLNetDataConfig
    from families.xlnet.tokenizer import XLNetTokenizer
    from families.xlnet.config import XLNetConfig
    from tests.families.xlnet.corpus import write_corpus
    plain = "The cow moos."
    corpus = tmp_path / "corpus.txt"
    with open(write_corpus(tmp_path / "full.txt", 60), encoding="utf-8") as f:
        corpus.write_text("\n\n".join(["\n".join([plain] * 5)] * 60) + "\n\n" + f.read(), encoding="utf-8")
    records = str(tmp_path / "late.tfrecord")
    write_pretraining_data(str(corpus), [records], xlnet_setup["spiece"],
                           XLNetDataConfig(seq_len=32, reuse_len=16, bsz_per_host=4, num_predict=6),
                           documents_per_chunk=60, processor_class=XLNetChunkProcessor, log_every_seconds=1e9)
    n_token = max(XLNetTokenizer(xlnet_setup["spiece"]).encode_ids(plain)) + 1
    inputs = read_examples([records])["input"]
    assert inputs[:256].max() < n_token <= inputs.max()
    pieces = read_metadata(records)["settings"]["vocab_size"]
    config = str(tmp_path / "xlnet_config.json")
    XLNetConfig.from_preset("xlnet_tiny").replace(n_token=n_token).to_json_file(config)
    stderr = fails(xlnet_command({**xlnet_setup, "records": records, "config": config}, tmp_path / "out",
                                 "--do_train", "--num_train_steps=1"))
    assert (f"error: {records} was written with a vocabulary of {pieces} ids (0-{pieces - 1}; "
            f"{tmp_path}/.late.tfrecord.metadata.json) but {config} has n_token={n_token}") in stderr, stderr[-2000:]


# (lengths, the error naming them) against the records' seq_len 32, reuse_len 16.
TWO_BAD_LENGTHS = ({"perm_size": 0, "mem_len": -1}, "--perm_size=0 must divide --reuse_len=16 and --seq_len - "
                   "--reuse_len = 16; --mem_len=-1 must be >= 0 (0: no memory)")


@pytest.mark.parametrize("lengths, error", [
    ({"perm_size": 5}, "--perm_size=5 must divide --reuse_len=16 and --seq_len - --reuse_len = 16"),
    ({"reuse_len": 40}, "--reuse_len=40 must be in [0, --seq_len=32)"),
    TWO_BAD_LENGTHS,
    ({"num_predict": 33}, "--num_predict=33 must be in [1, --seq_len=32]"),
])
def test_xlnet_names_every_length_that_cannot_train(lengths, error):
    from families.xlnet.pretraining.task import check_lengths
    with pytest.raises(ValueError) as raised:
        check_lengths(**{"seq_len": 32, "reuse_len": 16, "perm_size": 8, "num_predict": 6, "mem_len": 0, **lengths})
    assert str(raised.value) == error


def test_xlnet_refuses_lengths_that_cannot_train_before_any_work(xlnet_setup, tmp_path):
    """One `error:` line naming the flags (`check_lengths`, above), and an
    interrupted save (which a trainer's start clears away) still in place."""
    (tmp_path / "ckpt-7_temp").mkdir()
    lengths, error = TWO_BAD_LENGTHS
    args = xlnet_command(xlnet_setup, tmp_path, "--do_train", "--num_train_steps=2",
                         *(f"--{name}={value}" for name, value in lengths.items()))
    done = warm_python.run(args, env=ENV, capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == f"error: {error}"
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt-7_temp"]


def test_an_xlnet_run_converts_to_every_layout_bit_for_bit(xlnet_run, tmp_path):
    """convert_checkpoint.py takes an XLNet run's output_dir or its ckpt-N, as a BERT
    run's. Every layout loads back into the pretrainer with the weights the trainer
    restores (the Model Garden's holds the backbone only), and transformers reads
    Hugging Face's with the same tensors."""
    transformers = pytest.importorskip("transformers")
    from checkpoints.loader import load_into
    from families.xlnet.checkpoints.hf_names import hf_to_tf1
    from families.xlnet.checkpoints.tf1_names import xlnet_tf1_name
    from convert_checkpoint import convert
    from families.xlnet.config import XLNetConfig
    from families.xlnet.pretrainer import XLNetPretrainer
    from tests.families.xlnet.hf_reference import hf_tensors
    run_dir, out = xlnet_run[0], tmp_path / "converted"
    config = XLNetConfig.from_json_file(str(run_dir / "xlnet_config.json"))
    trained = XLNetPretrainer(config)
    tf.train.Checkpoint(model={v.path: v.value for v in trained.weights}).read(
        str(run_dir / "ckpt-6")).assert_existing_objects_matched().expect_partial()
    want = {v.path: v.numpy() for v in trained.weights}

    run([sys.executable, os.path.join(ROOT, "convert_checkpoint.py"), f"--init_checkpoint={run_dir}",
         "--output_format=tf1", f"--output_dir={out / 'tf1'}"])
    for fmt in ("ours", "model_garden", "hf"):
        convert(str(run_dir / "ckpt-6"), str(out / fmt), fmt)
    for fmt, path in (("tf1", out / "tf1" / "xlnet_model.ckpt"), ("ours", out / "ours"),
                      ("model_garden", out / "model_garden" / "ckpt"), ("hf", out / "hf")):
        loaded = XLNetPretrainer(config)
        report = load_into(loaded, str(path))
        assert report.missing == (["lm_loss/bias"] if fmt == "model_garden" else []), fmt
        for variable in loaded.weights:
            if variable.path in report.loaded:
                np.testing.assert_array_equal(variable.numpy(), want[variable.path], err_msg=f"{fmt}: {variable.path}")

    theirs = hf_to_tf1(hf_tensors(transformers.XLNetLMHeadModel.from_pretrained(str(out / "hf"))), config.untie_r)
    ours = {xlnet_tf1_name(path)[0]: value for path, value in want.items()}
    assert sorted(theirs) == sorted(ours)
    for name, value in ours.items():
        np.testing.assert_array_equal(theirs[name], value, err_msg=name)
