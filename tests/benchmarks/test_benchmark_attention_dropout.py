"""The attention-dropout micro-benchmark runs its JAX contenders wherever JAX does (here: CPU)."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_attention_dropout_benchmark_times_the_jax_contenders(tmp_path):
    script = os.path.join(ROOT, "benchmarks", "attention_dropout.py")
    done = subprocess.run(
        [sys.executable, script, "--batch=2", "--seq=64", "--heads=2", "--head_size=16", "--block=16",
         "--steps=2", "--warmup_steps=1", "--contenders=ours_fused,ours_unfused,jax_no_dropout"],
        env={**os.environ, "KERAS_BACKEND": "jax", "JAX_PLATFORMS": "cpu", "CUDA_VISIBLE_DEVICES": ""},
        capture_output=True, text=True, timeout=600, cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "block 16" in done.stdout, done.stdout
    for name in ("ours_fused", "ours_unfused", "jax_no_dropout"):
        row = next(line for line in done.stdout.splitlines() if line.startswith(name))
        assert float(row.split()[1]) > 0, done.stdout
