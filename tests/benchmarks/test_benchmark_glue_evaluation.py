"""benchmarks/glue_evaluation.py: ours and Hugging Face evaluate the same dev
examples; ours computes fewer tokens than HF's batches padded to their longest
in file order, and full-length batches compute every position."""

import os

from tests.benchmarks.run_script import run_benchmark, table_rows
from tests.conftest import FIXTURES

CONTENDERS = ("ours_fp32", "ours_fp32_full_length", "hf_torch_fp32")


def test_glue_evaluation_compares_batching_with_hugging_face(tmp_path, uncased_vocab_file):
    stdout = run_benchmark(
        tmp_path, "glue_evaluation.py", "--preset=bert_tiny_uncased", "--task=MNLI",
        f"--data_dir={os.path.join(FIXTURES, 'glue_mnli')}", f"--vocab_file={uncased_vocab_file}",
        "--batch=2", "--seq=64", "--steps=1", "--repeats=1", f"--contenders={','.join(CONTENDERS)}")
    assert "Model name" in stdout and "(9 examples)" in stdout, stdout
    rows = table_rows(stdout, CONTENDERS)
    assert set(rows) == set(CONTENDERS), stdout
    tokens = {name: int(row[3]) for name, row in rows.items()}
    assert tokens["ours_fp32"] < tokens["hf_torch_fp32"] < tokens["ours_fp32_full_length"] == 9 * 64
    assert float(rows["ours_fp32"][1]) > 0 and rows["hf_torch_fp32"][4] == "1.00x"
