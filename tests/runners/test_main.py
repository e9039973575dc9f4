"""The README's main job runs end to end (reduced: `--quick`) so it cannot silently break."""

import os
import re
import subprocess
import sys

import pytest

from demo.progress import progress_line
from tests.conftest import ROOT

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


def test_stdlib_corpus_reads_neither_tests_nor_installed_packages():
    from demo.stdlib_corpus import documents
    top_dirs = {module.split(os.sep)[0] for module, _ in documents()}
    assert "os.py" in top_dirs and "email" in top_dirs
    assert not top_dirs & {"site-packages", "dist-packages", "test", "idlelib"}


def test_labelled_pairs_come_from_modules_the_corpus_holds_out(tmp_path):
    from demo.make_continuation_set import write_set
    from demo.stdlib_corpus import write_corpus
    write_set(str(tmp_path))
    write_corpus(str(tmp_path / "corpus.txt"))
    corpus = set((tmp_path / "corpus.txt").read_text(encoding="utf-8").splitlines())
    for split in ("train", "dev"):
        rows = [line.split("\t") for line in (tmp_path / f"{split}.tsv").read_text(encoding="utf-8").splitlines()]
        assert rows[0] == ["sentence_a", "sentence_b", "label"]
        assert {label for _, _, label in rows[1:]} == {"continues", "unrelated"}
        assert not {s for a, b, _ in rows[1:] for s in (a, b)} & corpus
    if sys.version_info[:3] == (3, 11, 7):  # the shipped files were made with this Python
        for split in ("train", "dev"):
            assert (tmp_path / f"{split}.tsv").read_bytes() == (
                open(os.path.join(ROOT, "assets", "demo_continuation", f"{split}.tsv"), "rb").read())
