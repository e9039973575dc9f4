"""benchmarks/serving.py: the classifier SavedModel that `run_classifier.py --export_dir` writes, served
from strings in a process of its own, timed beside Hugging Face torch, with latency, throughput and
peak-memory columns. The ONNX Runtime and OpenVINO contenders need packages the suite does not install
(the script's docstring names them), to keep CI's set-up and time within its limit."""

import os

import numpy as np

from benchmarks.serving import _export, _export_ids
from tests.benchmarks.run_script import run_benchmark, table_rows

CONTENDERS = ("export_fp32", "hf_torch_fp32")


def test_the_served_export_is_timed_beside_its_peers(tmp_path):
    stdout = run_benchmark(tmp_path, "serving.py", "--preset=bert_tiny_uncased", "--seq=32", "--batch=4",
                           "--steps=1", "--requests=2", "--repeats=1", f"--work_dir={tmp_path / 'work'}",
                           f"--contenders={','.join(CONTENDERS)}")
    assert "Model name" in stdout and "Flags" in stdout, stdout
    rows = table_rows(stdout, CONTENDERS)
    assert set(rows) == set(CONTENDERS), stdout
    for name, row in rows.items():  # contender, p50 ms, p99 ms, seq/s, min-max, vs hf_torch_fp32, ...
        assert float(row[1]) > 0 and float(row[2]) >= float(row[1]) and float(row[3]) > 0, stdout
        assert row[5].endswith("x"), stdout
    assert rows["hf_torch_fp32"][5] == "1.00x", stdout
    saved = tmp_path / "work" / "bert_tiny_uncased_seq32" / "export_float32"
    assert os.path.isfile(saved / "saved_model.pb"), sorted(os.listdir(saved))
    # `export_bf16_ids`' path: packed ids from Hugging Face's tokenizer into `serve_ids` classify as the
    # in-graph tokenizer does (read here on the float32 export the run wrote)
    texts = ["a gripping , funny and ultimately moving film .", "It's dull, isn't it?"]
    np.testing.assert_allclose(_export_ids(str(saved), 32)(texts), _export(str(saved))(texts), atol=1e-6)
