"""benchmarks/gpt_speed.py as a user runs it: ours against transformers' OpenAIGPT, inference and a
training step, a table per mode and length, the host printed with them."""

import pytest

from tests.benchmarks.run_script import compare_with_hugging_face


@pytest.mark.slow  # 14 s idle: two processes (ours, then transformers on torch) start and time one step each
def test_gpt_speed_compares_ours_with_hugging_face(tmp_path):
    stdout = compare_with_hugging_face(tmp_path, "gpt_speed.py", "--preset=gpt_tiny", "--seqs=16",
                                       "--tokens=32", "--train_tokens=32")
    assert "inference, gpt_tiny, seq 16, batch 2" in stdout, stdout
    assert "train, gpt_tiny, seq 16, batch 2" in stdout, stdout
