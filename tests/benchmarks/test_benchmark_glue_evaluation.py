"""benchmarks/glue_evaluation.py: ours and Hugging Face evaluate the same dev
examples; ours computes no more tokens than HF's batches padded to their longest
in file order, and full-length batches compute every position."""

import os
import subprocess
import sys

from tests.conftest import FIXTURES, ROOT


def test_glue_evaluation_compares_batching_with_hugging_face(tmp_path, uncased_vocab_file):
    script = os.path.join(ROOT, "benchmarks", "glue_evaluation.py")
    done = subprocess.run(
        [sys.executable, script, "--preset=bert_tiny_uncased", "--task=MNLI",
         f"--data_dir={os.path.join(FIXTURES, 'glue_mnli')}", f"--vocab_file={uncased_vocab_file}",
         "--batch=2", "--seq=64", "--steps=1", "--repeats=1",
         "--contenders=ours_fp32,ours_fp32_full_length,hf_torch_fp32"],
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}, capture_output=True, text=True, timeout=900,
        cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Model name" in done.stdout and "(9 examples)" in done.stdout, done.stdout
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines()
            if line.startswith(("ours_fp32", "hf_torch_fp32"))}
    assert set(rows) == {"ours_fp32", "ours_fp32_full_length", "hf_torch_fp32"}, done.stdout
    tokens = {name: int(row[3]) for name, row in rows.items()}
    assert tokens["ours_fp32"] < tokens["hf_torch_fp32"] < tokens["ours_fp32_full_length"] == 9 * 64
    assert float(rows["ours_fp32"][1]) > 0 and rows["hf_torch_fp32"][4] == "1.00x"
