"""One run per output_dir: a second run is refused naming the first, the lock of
a run that has ended is taken over, and an output_dir that is a file is named."""

import os
import socket
import sys

import pytest

from families.bert.pretraining.task import PretrainingTask
from tests import warm_python
from tests.conftest import FIXTURES, ROOT, process_holding_lock
from tests.pretraining_records import TINY, write_records
from training.run_options import RunOptions
from training.trainer import Trainer
from utils.output_dir_lock import LOCK_FILE, OutputDirError, lock_output_dir

ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}
HOLD = ("import sys; from utils.output_dir_lock import lock_output_dir; "
        "lock_output_dir(sys.argv[1]); print('locked', flush=True); sys.stdin.read()")


@pytest.fixture()
def other_run(tmp_path):
    """Another process holding the lock of tmp_path / "out" until the test ends."""
    output_dir = tmp_path / "out"
    with process_holding_lock(HOLD, output_dir) as process:
        yield output_dir, process


def test_second_run_is_refused_naming_the_first(other_run, tmp_path):
    output_dir, process = other_run
    task = PretrainingTask(TINY, write_records(tmp_path / "train.tfrecord", count=8), 16, 4)
    with pytest.raises(OutputDirError, match=rf"in use by another run \(pid {process.pid} on "
                                             rf"{socket.gethostname()}"):
        Trainer(task, RunOptions(output_dir=str(output_dir)))


def test_lock_of_an_ended_run_is_taken_over(other_run):
    output_dir, process = other_run
    process.stdin.close()
    process.wait(timeout=60)
    lock_output_dir(str(output_dir))
    with open(output_dir / LOCK_FILE, encoding="utf-8") as f:
        assert f.read() == f"pid {os.getpid()} on {socket.gethostname()}\n"


def test_stale_lock_file_without_a_holder_is_taken_over(tmp_path):
    (tmp_path / LOCK_FILE).write_text("pid 4194304 on elsewhere\n")
    lock_output_dir(str(tmp_path))
    assert (tmp_path / LOCK_FILE).read_text() == f"pid {os.getpid()} on {socket.gethostname()}\n"
    lock_output_dir(str(tmp_path))  # Taking it again in the same process is fine.


def test_eval_into_an_output_dir_that_is_a_file(tmp_path, uncased_vocab_file):
    (tmp_path / "config.json").write_text(TINY.replace(vocab_size=30522).to_json_string())
    output_dir = tmp_path / "results"
    output_dir.write_text("")
    done = warm_python.run(
        [sys.executable, os.path.join(ROOT, "run_classifier.py"), "--task_name=MNLI",
         f"--data_dir={os.path.join(FIXTURES, 'glue_mnli')}", f"--vocab_file={uncased_vocab_file}",
         f"--bert_config_file={tmp_path / 'config.json'}", "--do_eval", "--max_seq_length=16",
         f"--output_dir={output_dir}"],
        cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=600)
    assert done.returncode != 0
    assert done.stderr.strip().splitlines()[-1] == f"error: output_dir '{output_dir}' is a file, not a directory"
    assert "Traceback" not in done.stderr
