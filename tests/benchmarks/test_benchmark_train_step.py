"""The train-step benchmark runs on JAX without TensorFlow and on TensorFlow; gpu_peers.py runs on JAX."""

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.pretraining_records import TINY

# Runs the benchmark with `import tensorflow` made to fail, as on a machine without it.
NO_TENSORFLOW = """
import runpy, sys
class NoTensorFlow:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "tensorflow":
            raise ImportError("TensorFlow is not installed here")
sys.meta_path.insert(0, NoTensorFlow())
sys.argv = [{script!r}] + sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
assert not [m for m in sys.modules if m.split(".")[0] == "tensorflow"]
"""


def run_benchmark(tmp_path, backend, *extra):
    config = tmp_path / "bert_config.json"
    TINY.to_json_file(str(config))
    script = os.path.join(ROOT, "benchmarks", "train_step.py")
    args = [f"--bert_config_file={config}", "--batch_size=4", "--seq_length=16",
            "--max_predictions=4", "--steps=2", "--warmup_steps=1", *extra]
    command = ([sys.executable, "-c", NO_TENSORFLOW.format(script=script), *args]
               if backend == "jax" else [sys.executable, script, *args])
    done = subprocess.run(command, env={**os.environ, "KERAS_BACKEND": backend,
                                        "CUDA_VISIBLE_DEVICES": "", "TF_CPP_MIN_LOG_LEVEL": "2"},
                          capture_output=True, text=True, timeout=600, cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def expected_flops(batch=4, seq=16, predictions=4):
    h, i, layers, v = (TINY.hidden_size, TINY.intermediate_size, TINY.num_hidden_layers,
                       TINY.vocab_size)
    n = layers * (4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h)
    return batch * (seq * (6 * n + 12 * layers * h * seq) + predictions * 6 * (h * h + v * h)
                    + 6 * (h * h + 2 * h))


@pytest.mark.parametrize("backend,extra", [("jax", ["--mixed_precision=bf16"]),
                                           ("tensorflow", [])])
def test_benchmark_reports_throughput_and_flops(tmp_path, backend, extra):
    result = run_benchmark(tmp_path, backend, *extra)
    assert result["backend"] == backend
    assert result["examples_per_second"] > 0 and result["achieved_tflops"] > 0
    assert result["model_tflops_per_step"] * 1e12 == pytest.approx(expected_flops())
    assert result["loss_last"] < 20


@pytest.mark.parametrize("work", ["train", "infer"])
def test_gpu_peers_benchmark_runs_ours_on_jax(tmp_path, work):
    """The side-by-side GPU script's own contender works wherever JAX does (here: CPU)."""
    script = os.path.join(ROOT, "benchmarks", "gpu_peers.py")
    done = subprocess.run(
        [sys.executable, script, f"--work={work}", "--preset=bert_tiny_uncased", "--batch=4",
         "--seq=16", "--predictions=4", "--steps=2", "--warmup_steps=1", "--contenders=ours_jax"],
        env={**os.environ, "KERAS_BACKEND": "jax", "CUDA_VISIBLE_DEVICES": ""},
        capture_output=True, text=True, timeout=600, cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr[-3000:]
    row = next(line for line in done.stdout.splitlines() if line.startswith("ours_jax"))
    assert float(row.split()[1]) > 0, done.stdout
    # Off a GPU the attention dropout is the explicit softmax, and the table says so.
    assert ("explicit softmax" in row) == (work == "train"), done.stdout


def test_packed_pretraining_benchmark_runs_on_jax_without_tensorflow(tmp_path):
    """Packed vs padded rows from saved lengths, as on the GPU machine."""
    import numpy as np
    lengths = tmp_path / "lengths.npy"
    np.save(lengths, np.random.default_rng(0).integers(5, 33, 200))
    script = os.path.join(ROOT, "benchmarks", "packed_pretraining.py")
    done = subprocess.run(
        [sys.executable, "-c", NO_TENSORFLOW.format(script=script), f"--lengths_file={lengths}",
         "--preset=bert_tiny_uncased", "--seq_length=64", "--max_predictions=10",
         "--batch_size=4", "--steps=1", "--warmup_steps=1", "--repeats=1"],
        env={**os.environ, "KERAS_BACKEND": "jax", "CUDA_VISIBLE_DEVICES": ""},
        capture_output=True, text=True, timeout=600, cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout[done.stdout.index("{"):])
    assert result["backend"] == "jax" and result["instances"] == 200
    assert result["padding_share_packed"] < result["padding_share_padded"]
    assert result["packed_real_tokens_per_s"] > 0 and result["speedup_bound"] > 1.5
