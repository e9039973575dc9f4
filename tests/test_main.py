"""The README's main job runs end to end (reduced: `--quick`) so it cannot silently break."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_main_job_runs_the_whole_pipeline(tmp_path):
    result = subprocess.run([sys.executable, os.path.join(ROOT, "main.py"), "--quick",
                             f"--work_dir={tmp_path}"], cwd=ROOT, capture_output=True, text=True,
                            env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
    assert result.returncode == 0, result.stderr[-4000:]
    out = result.stdout
    assert "=== summary" in out
    assert "masked_lm_accuracy" in out and "eval_accuracy" in out
    served = [line for line in out.splitlines() if "(0." in line or "(1.0" in line]
    assert len(served) == 3 and all(line.split()[0] in ("negative", "positive") for line in served)
    for name in ("pretrain/eval_results.txt", "classifier/eval_results.txt",
                 "serving/saved_model.pb", "hub/preprocessor/saved_model.pb",
                 "hub/encoder/saved_model.pb"):
        assert (tmp_path / name).exists(), name
