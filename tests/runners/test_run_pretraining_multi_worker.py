"""Two `run_pretraining.py` workers on localhost (MultiWorkerMirroredStrategy via
TF_CONFIG) train like one process with the same global batch."""

import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import ROOT
from tests.pretraining_records import TINY, write_records

TIMEOUT_S = 600  # Three TensorFlow processes starting on a small, shared CPU.
# Same examples per step, same initial weights; only the order of the
# gradient sum over replicas differs, in float32 (`--mixed_precision=none`:
# under `auto` a CPU with native bf16 trains in bf16, whose 8-bit mantissa turns
# that order into 4e-4 relative differences in the loss after one step).
LOSS_RTOL = 1e-5


def free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def losses(output_dir):
    """{step: loss} from the TensorBoard summaries the chief wrote."""
    found = {}
    events = tf.io.gfile.glob(os.path.join(output_dir, "train", "events.*"))
    for path in events:
        for event in tf.compat.v1.train.summary_iterator(path):
            for value in event.summary.value:
                if value.tag == "loss":
                    found[event.step] = float(tf.make_ndarray(value.tensor))
    return found


@pytest.mark.slow
def test_two_workers_match_one_process(tmp_path):
    records = write_records(tmp_path / "train.tfrecord")
    config = tmp_path / "bert_config.json"
    TINY.replace(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0).to_json_file(str(config))
    steps = 4
    args = [sys.executable, os.path.join(ROOT, "run_pretraining.py"), f"--input_file={records}",
            f"--bert_config_file={config}", "--do_train", "--train_batch_size=8",
            "--max_seq_length=16", "--max_predictions_per_seq=4", f"--num_train_steps={steps}",
            "--num_warmup_steps=0", "--learning_rate=1e-2", "--log_steps=1",
            "--save_checkpoints_steps=2", "--mixed_precision=none"]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}
    env.pop("TF_CONFIG", None)
    cluster = [f"localhost:{port}" for port in free_ports(2)]
    processes = [subprocess.Popen(args + [f"--output_dir={tmp_path / 'one'}"], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)]
    for index in range(2):
        tf_config = {"cluster": {"worker": cluster}, "task": {"type": "worker", "index": index}}
        processes.append(subprocess.Popen(
            args + [f"--output_dir={tmp_path / 'two'}", "--distribution_strategy=multi_worker_mirrored"],
            env={**env, "TF_CONFIG": json.dumps(tf_config)},
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    try:
        outputs = [p.communicate(timeout=TIMEOUT_S)[0] for p in processes]
    finally:
        for p in processes:
            if p.poll() is None:
                p.kill()
                p.wait()
    for p, output in zip(processes, outputs):
        assert p.returncode == 0, output[-3000:]

    one, two = losses(tmp_path / "one"), losses(tmp_path / "two")
    assert sorted(one) == sorted(two) == list(range(1, steps + 1))
    np.testing.assert_allclose([two[s] for s in sorted(two)], [one[s] for s in sorted(one)],
                               rtol=LOSS_RTOL)
    assert tf.train.latest_checkpoint(str(tmp_path / "two")).endswith(f"ckpt-{steps}")
    assert not [d for d in os.listdir(tmp_path / "two") if d.startswith(".tmp_")]
