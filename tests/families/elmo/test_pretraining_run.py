"""ELMo pretraining end to end: a run resumed from a checkpoint ends exactly
as one that never stopped (weights, Adagrad, dropout RNG, input position, the
LSTM state carried between steps, the sampled softmax's draws);
`run_pretraining.py --model=elmo` trains and evaluates perplexity, and its
output converts to `lm_weights.hdf5` + `options.json` + `vocab.txt` that the
original `bilm` reads with the outputs of our encoder on the run's weights."""

import dataclasses
import json
import math
import os
import shutil
import sys

import numpy as np
import pytest

from checkpoints.loader import load_into
from data.pretraining.writer import write_pretraining_data
from families.elmo.checkpoints import lm_weights
from families.elmo.checkpoints.convert import convert
from families.elmo.config import ELMoConfig
from families.elmo.pretraining.chunks import ELMoChunkProcessor, ELMoDataConfig
from families.elmo.pretraining.optimizer import AdagradConfig
from families.elmo.pretraining.task import ELMoPretrainingTask
from families.elmo.pretraining.vocabulary import (LMVocabulary, count_words, vocabulary_words,
                                                  write_vocabulary)
from tests import warm_python
from tests.conftest import ROOT, assert_resumed_values, checkpoint_values, process_holding_lock
from tests.families.elmo import cases
from tests.families.elmo.test_bilm_parity import BOUND, masked_difference
from tests.families.elmo.test_pretraining_data import write_corpus
from tests.utils.test_output_dir_lock import HOLD
from training.run_options import RunOptions
from training.trainer import Trainer

HERE = os.path.dirname(os.path.abspath(__file__))
BATCH, STEPS, SAMPLED = 3, 5, 8
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("elmo_pretraining")
    text, vocab_file, records = write_corpus(root / "corpus.txt"), str(root / "vocab.txt"), str(root / "elmo.tfrecord")
    with open(text, encoding="utf-8") as f:
        write_vocabulary(vocabulary_words(count_words([[line for line in f if line.strip()]])), vocab_file)
    write_pretraining_data(text, [records], vocab_file, ELMoDataConfig(BATCH, STEPS),
                           processor_class=ELMoChunkProcessor, log_every_seconds=1e9)
    # The tiny preset with the original's training options' n_characters.
    tiny = ELMoConfig.from_preset("elmo_tiny")
    options = str(root / "options.json")
    tiny.replace(n_tokens_vocab=None, char_cnn=dataclasses.replace(tiny.char_cnn, n_characters=261)).to_json_file(options)
    return {"vocab": vocab_file, "records": records, "options": options}


def train(setup, output_dir, steps):
    vocab = LMVocabulary.from_file(setup["vocab"])
    config = ELMoConfig.from_preset("elmo_tiny").replace(
        n_tokens_vocab=vocab.size, unroll_steps=STEPS, dropout=0.1, n_negative_samples_batch=SAMPLED)
    trainer = Trainer(ELMoPretrainingTask(config, setup["records"], vocab), RunOptions(
        output_dir=str(output_dir), mixed_precision="none", save_checkpoints_steps=2, log_steps=2))
    return trainer.train(BATCH, steps, AdagradConfig())


@pytest.mark.slow  # two trainers, each tracing the training step: 25 s on 2 shared cores at load 9
def test_resumed_training_ends_as_if_uninterrupted(setup, tmp_path):
    """A run killed after its step-2 checkpoint left that checkpoint (the
    straight run's, runs being deterministic), which a new trainer resumes."""
    straight, resumed = tmp_path / "straight", tmp_path / "resumed"
    records = train(setup, straight, 4)
    assert [r["step"] for r in records] == [2, 4] and records[-1]["perplexity"] > 1
    resumed.mkdir()
    for path in straight.glob("ckpt-2.*"):
        shutil.copy(path, resumed)
    assert [r["step"] for r in train(setup, resumed, 4)] == [4]
    assert_resumed_values(checkpoint_values(resumed), checkpoint_values(straight), "state/")


def run_pretraining(*flags):
    """run_pretraining.py --model=elmo with `flags`."""
    return [sys.executable, os.path.join(ROOT, "run_pretraining.py"), "--model=elmo", *flags]


def run(args):
    done = warm_python.run(args, cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stderr


def test_an_output_dir_another_run_holds_is_refused_in_one_line(setup, tmp_path):
    flags = [f"--input_file={setup['records']}", f"--output_dir={tmp_path}", f"--options_file={setup['options']}",
             f"--vocab_file={setup['vocab']}", f"--train_batch_size={BATCH}", f"--unroll_steps={STEPS}",
             "--do_train", "--num_train_steps=1"]
    with process_holding_lock(HOLD, tmp_path) as holder:
        done = warm_python.run(run_pretraining(*flags), cwd=ROOT, env=ENV, capture_output=True, text=True,
                               timeout=600)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].startswith(
        f"error: output_dir '{tmp_path}' is in use by another run (pid {holder.pid} on "), done.stderr[-2000:]
    assert "Traceback" not in done.stderr


@pytest.mark.slow  # the runner and the original bilm in processes of their own: 50 s at load 9
def test_run_pretraining_converts_to_weights_the_original_reads(setup, tmp_path):
    run_dir, out = tmp_path / "run", tmp_path / "converted"
    flags = [f"--input_file={setup['records']}", f"--output_dir={run_dir}", f"--options_file={setup['options']}",
             f"--vocab_file={setup['vocab']}", f"--train_batch_size={BATCH}", f"--eval_batch_size={BATCH}",
             f"--unroll_steps={STEPS}", f"--n_negative_samples_batch={SAMPLED}", "--mixed_precision=none"]
    log = run(run_pretraining(*flags, "--do_train", "--do_eval", "--num_train_steps=2",
                                         "--log_steps=1"))
    assert "step 2: loss = " in log and "perplexity = " in log
    results = dict(line.split(" = ") for line in (run_dir / "eval_results.txt").read_text().splitlines())
    assert set(results) == {"loss", "perplexity", "forward_perplexity", "backward_perplexity", "global_step"}
    assert math.isclose(float(results["perplexity"]), math.exp(float(results["loss"])), rel_tol=1e-5)
    assert list((run_dir / "train").iterdir()), "no TensorBoard summaries"
    options = json.loads((run_dir / "options.json").read_text())
    vocab = LMVocabulary.from_file(setup["vocab"])
    assert options["n_tokens_vocab"] == vocab.size and options["bidirectional"] is True
    assert (options["unroll_steps"], options["batch_size"], options["n_negative_samples_batch"]) == (STEPS, BATCH, SAMPLED)
    assert (options["learning_rate"], options["all_clip_norm_val"], options["dropout"]) == (0.2, 10.0, 0.1)

    # Lossless: every biLM dataset is the run's weight (the tables without their padding row);
    # no softmax, as the original's dump_weights; the options the original reads at inference.
    config = ELMoConfig.from_json_file(str(run_dir / "options.json"))
    assert config.char_cnn.n_characters == 261
    convert(str(run_dir), str(out), "hdf5", config, setup["vocab"])
    assert json.loads((out / "options.json").read_text())["char_cnn"]["n_characters"] == 262
    trained = cases.build(config, stateful=True)
    report = load_into(trained, str(run_dir))
    datasets = lm_weights.read_datasets(str(out))
    assert sorted(datasets) == sorted(lm_weights.required(config)) and len(report.loaded) == len(datasets)
    for name, value in lm_weights.datasets_of(trained.bilm).items():
        np.testing.assert_array_equal(datasets[name], value, err_msg=name)

    pytest.importorskip("bilm", reason="the original biLM (pip install bilm==0.1.post5) is the oracle")
    (out / "sentences.json").write_text(json.dumps(cases.BATCHES))
    (out / "mix.json").write_text(json.dumps(cases.mix_weights(config)))
    warm_python.run([sys.executable, os.path.join(HERE, "bilm_reference.py"), str(out)], check=True,
                    capture_output=True, timeout=600)
    reference = dict(np.load(out / "reference.npz"))
    for k, layers in enumerate(cases.run_ours(trained, cases.BATCHES)):
        assert masked_difference(layers, reference, k) <= BOUND


def test_run_pretraining_refuses_batches_its_records_were_not_written_for(setup, tmp_path):
    done = warm_python.run(run_pretraining(
        f"--input_file={setup['records']}", f"--output_dir={tmp_path}", "--preset=elmo_tiny",
        f"--vocab_file={setup['vocab']}", "--train_batch_size=4", f"--unroll_steps={STEPS}", "--do_train"),
        cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"error: --train_batch_size=4 but {setup['records']} was written with batch_size={BATCH} "
        f"({os.path.dirname(setup['records'])}/.elmo.tfrecord.metadata.json)")


def test_run_pretraining_refuses_xla_before_any_work(setup, tmp_path):
    """XLA cannot compile the LSTM loop's gradient, full softmax or sampled:
    a usage error, not a graph error after the data and model are built."""
    done = warm_python.run(run_pretraining(
        f"--input_file={setup['records']}", f"--output_dir={tmp_path / 'run'}", "--preset=elmo_tiny",
        f"--vocab_file={setup['vocab']}", f"--train_batch_size={BATCH}", f"--unroll_steps={STEPS}",
        "--n_negative_samples_batch=0", "--do_train", "--jit_compile"),
        cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "--jit_compile: XLA compiles neither the gradient of the biLM's LSTM loop" in done.stderr
    assert not (tmp_path / "run").exists()
