"""run_squad.py on XLNet from its command line alone: an XLNet-tiny checkpoint in
the original layout with `xlnet_config.json` and `spiece.model` beside it trains
the SQuAD 2.0 head from scratch and writes BERT's files, XLNet's n-best keys,
and scores every question, and export_meta.json rebuilds the trained model; with --export_dir the
SQuAD SavedModel serves the same answers."""

import math
import os
import sys

import pytest
import tensorflow as tf

from checkpoints.loader import load_into
from export.export_meta import read_export_meta
from export.export_model import build_task_model
from tasks.question_answering.squad_reader import read_squad_file
from tests import warm_python
from tests.conftest import ROOT, read_json, read_squad_predictions
from tests.families.xlnet.squad import write_squad_v2

THRESHOLD = 100.0
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}


def run_squad(*argv):
    return warm_python.run([sys.executable, os.path.join(ROOT, "run_squad.py"), *argv], cwd=ROOT,
                           env=ENV, capture_output=True, text=True, timeout=600)


def test_trains_and_predicts_squad_v2(xlnet_release, tmp_path):
    squad_file = write_squad_v2(tmp_path / "houses-v2.json")
    output_dir = tmp_path / "out"
    done = run_squad(f"--init_checkpoint={xlnet_release}", "--do_train",
                     f"--train_file={squad_file}", "--do_predict", f"--predict_file={squad_file}",
                     "--version_2_with_negative", "--max_seq_length=48", "--doc_stride=16",
                     "--max_query_length=16", "--train_batch_size=4", "--num_train_epochs=2",
                     "--learning_rate=1e-3", "--n_best_size=5", "--start_n_top=3",
                     "--end_n_top=2", f"--output_dir={output_dir}")
    assert done.returncode == 0, done.stderr[-3000:]

    contexts = {e.qas_id: e.context for e in read_squad_file(squad_file, False, True).examples}

    predictions, nbest, null_odds = read_squad_predictions(output_dir, contexts)
    for qid, text in predictions.items():
        assert text in contexts[qid]
        entries = nbest[qid]
        assert 1 <= len(entries) <= 5
        assert all(set(e) == {"text", "probability", "start_log_prob", "end_log_prob"}
                   for e in entries)
        assert sum(e["probability"] for e in entries) == pytest.approx(1.0)
        scores = [e["start_log_prob"] + e["end_log_prob"] for e in entries]
        assert scores == sorted(scores, reverse=True) and all(s <= 0 for s in scores)
        assert all(e["text"] in contexts[qid] for e in entries)
        assert text == next((e["text"] for e in entries if e["text"]), "")
        assert math.isfinite(null_odds[qid])
    results = read_json(output_dir / "eval_results.json")
    assert results["total"] == 9 and results["HasAns_total"] == 6 and results["NoAns_total"] == 3
    for key in ("exact", "f1", "best_exact", "best_f1"):
        assert 0.0 <= results[key] <= 100.0
    meta = read_json(output_dir / "export_meta.json")
    assert meta["task"] == "question_answering" and meta["encoder_family"] == "xlnet"
    assert meta["task_model"]["class_name"] == "XLNetSpanLabeler"
    assert meta["task_model"]["config"]["start_n_top"] == 3
    assert meta["do_lower_case"] is False  # XLNet's default, as the original's --uncased
    assert os.path.isfile(output_dir / "spiece.model")
    assert "squad/answer_class_dense_0/kernel" in done.stderr  # the head starts from scratch
    # export_meta.json rebuilds the model, and the run's checkpoint fills every weight.
    model = build_task_model(read_export_meta(str(output_dir)))
    assert not load_into(model, str(output_dir)).missing


def test_exports_a_saved_model_that_serves_the_predictions(xlnet_pretrained, tmp_path):
    """From a pretraining run's config (`bi_data`, memory: left out for the
    task), predicting in odd batches, the SavedModel of --export_dir answers the
    predict file's questions as predictions.json and null_odds.json do, each
    row as when asked alone. The briefly trained answer class gives every
    question about the same null odds, so the threshold is set far above them:
    every question is answered (the export tests cover "")."""
    squad_file = write_squad_v2(tmp_path / "houses-v2.json")
    output_dir, export_dir = tmp_path / "out", tmp_path / "serving" / "1"
    done = run_squad(f"--init_checkpoint={xlnet_pretrained}", "--do_train", "--predict_batch_size=5",
                     f"--train_file={squad_file}", "--do_predict", f"--predict_file={squad_file}",
                     "--version_2_with_negative", "--max_seq_length=48", "--doc_stride=16",
                     "--max_query_length=16", "--train_batch_size=4", "--num_train_epochs=2",
                     "--learning_rate=1e-3", "--n_best_size=5", "--start_n_top=3",
                     "--end_n_top=2", f"--null_score_diff_threshold={THRESHOLD}",
                     "--mixed_precision=none", f"--output_dir={output_dir}",
                     f"--export_dir={export_dir}")
    assert done.returncode == 0, done.stderr[-3000:]

    def load(name):
        return read_json(output_dir / name)

    predictions, null_odds = load("predictions.json"), load("null_odds.json")
    examples = read_squad_file(squad_file, False, True).examples
    serve = tf.saved_model.load(str(export_dir)).signatures["serving_default"]

    def ask(rows):
        return serve(question=tf.constant([e.question_text for e in rows]),
                     context=tf.constant([e.context for e in rows]))

    served = ask(examples)
    answered = 0
    for i, example in enumerate(examples):
        qid = example.qas_id
        expected = predictions[qid] if null_odds[qid] <= THRESHOLD else ""
        assert served["answer_text"].numpy()[i].decode("utf-8") == expected, qid
        assert served["has_answer"].numpy()[i] == bool(expected)
        assert served["null_odds"].numpy()[i] == pytest.approx(null_odds[qid], abs=1e-4)
        answered += bool(expected)
        alone = ask([example])  # the same window ids in a smaller batch: float32 rounding
        assert alone["answer_text"].numpy()[0] == served["answer_text"].numpy()[i], qid
        assert alone["null_odds"].numpy()[0] == pytest.approx(served["null_odds"].numpy()[i],
                                                             abs=1e-5)
    assert answered == len(examples)
