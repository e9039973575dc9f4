"""run_ner.py end to end on the tiny CoNLL fixture: original flags in, the
run's files out (eval_results.txt, predictions.txt, export_meta.json, SavedModel)."""

import os
import shutil
import subprocess
import sys

import pytest

from checkpoints.ours import save_weights
from modeling.encoder import BertEncoder
from tests.conftest import FIXTURES, ROOT
from tests.tiny_config import TINY_CONFIG


@pytest.mark.slow
def test_train_eval_predict_and_export(tmp_path, uncased_vocab_file):
    model_dir = tmp_path / "model"
    save_weights(BertEncoder(TINY_CONFIG),
                 str(model_dir))
    shutil.copy(uncased_vocab_file, model_dir / "vocab.txt")
    output_dir, export_dir = tmp_path / "run", tmp_path / "serving" / "1"
    subprocess.run([sys.executable, os.path.join(ROOT, "run_ner.py"),
                    f"--data_dir={os.path.join(FIXTURES, 'conll_tiny')}",
                    f"--init_checkpoint={model_dir}", f"--output_dir={output_dir}",
                    "--do_train", "--do_eval", "--do_predict", "--max_seq_length=16",
                    "--doc_stride=8", "--train_batch_size=4", "--num_train_epochs=1",
                    f"--export_dir={export_dir}"], check=True, cwd=ROOT, capture_output=True)
    results = dict(line.strip().split(" = ") for line in
                   (output_dir / "eval_results.txt").read_text().splitlines())
    assert {"eval_f1", "eval_precision", "eval_recall", "eval_PER_f1", "global_step"} <= set(results)
    predictions = (output_dir / "predictions.txt").read_text(encoding="utf-8")
    assert predictions.endswith("\n\n")
    sentences = [s.split("\n") for s in predictions[:-2].split("\n\n")]
    assert [len(s) for s in sentences] == [11, 2, 22, 7]
    assert all(len(line.split(" ")) == 3 for s in sentences for line in s)
    assert sentences[1][0].startswith("PARIS B-LOC ")  # the test split
    assert (output_dir / "export_meta.json").is_file()
    assert (export_dir / "saved_model.pb").is_file()
