"""The README's main job runs end to end (reduced: `--quick`) so it cannot silently break."""

import os
import re
import subprocess
import sys

import pytest

from demo.progress import progress_line

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What TensorFlow and CUDA print at start-up on a CPU machine when nobody silences them.
NOISE = re.compile(r"cuInit|CUDA|cuda|oneDNN custom operations|This TensorFlow binary|"
                   r"^[IWEF]\d{4} |^WARNING:|absl::InitializeLog", re.MULTILINE)


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    work = tmp_path_factory.mktemp("main")
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    result = subprocess.run([sys.executable, os.path.join(ROOT, "main.py"), "--quick", f"--work_dir={work}"],
                            cwd=ROOT, capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return work, result


def test_main_job_builds_every_artefact(quick_run):
    work, _ = quick_run
    for name in ("vocab.txt", "pretrain/eval_results.txt", "classifier/eval_results.txt",
                 "scratch/eval_results.txt", "serving/saved_model.pb", "hub/preprocessor/saved_model.pb",
                 "hub/encoder/saved_model.pb"):
        assert (work / name).exists(), name


def test_main_job_summary_reports_both_arms_and_served_pairs(quick_run):
    _, result = quick_run
    summary = result.stdout.split("=== summary", 1)[1]
    assert re.search(r"masked-LM accuracy 0\.\d{3}, next-sentence accuracy 0\.\d{3}", summary)
    assert re.search(r"from pretrained [01]\.\d{3}\s+from scratch [01]\.\d{3}", summary)
    served = re.findall(r"^\s+(continues|unrelated) \((0\.\d\d|1\.00)\)", summary, re.MULTILINE)
    assert len(served) == 3


def test_main_job_shows_training_progress_with_time_left(quick_run):
    _, result = quick_run
    lines = re.findall(r"^  pretraining: step (\d+)/20 .* examples/s .* left$", result.stdout, re.MULTILINE)
    assert lines and lines[-1] == "20"


def test_main_job_prints_no_tensorflow_or_cuda_start_up_noise(quick_run):
    _, result = quick_run
    assert not NOISE.search(result.stdout), NOISE.search(result.stdout).group(0)
    assert not NOISE.search(result.stderr), result.stderr[:2000]


def test_progress_line_estimates_time_left_from_examples_per_second():
    line = progress_line("pretraining", 100, 400, {"loss": 5.0, "masked_lm_accuracy": 0.25,
                                                    "examples_per_second": 64.0}, 32)
    # 300 steps of 32 examples at 64 examples/s: 150 s.
    assert line == "  pretraining: step 100/400  MLM acc 0.250  loss 5.000  64 examples/s  2m30s left"
