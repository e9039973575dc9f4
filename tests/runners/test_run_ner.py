"""run_ner.py end to end: original flags in, the run's files out
(eval_results.txt, predictions.txt, export_meta.json, SavedModel); for BERT on
the tiny CoNLL fixture, and for XLNet from a checkpoint in the original TF1
layout, whose SavedModel tags raw text as predictions.txt does; a plain tag
set (`--tag_scheme=tags`) scored by token accuracy."""

import json
import os
import shutil
import sys

import pytest
import tensorflow as tf
import tensorflow_text  # noqa: F401  (the SavedModel's SentencePiece op)
from seqeval.metrics.sequence_labeling import get_entities

from checkpoints.ours import save_weights
from families.bert.encoder import BertEncoder
from tests import warm_python
from tests.conftest import FIXTURES, ROOT
from tests.runners.xlnet_release import CONFIG as XLNET_CONFIG
from tests.tiny_config import TINY_CONFIG

COLOURS = ("red", "old", "tall")


def _run_ner(data_dir, output_dir, export_dir, *argv):
    """Trains, evaluates, predicts and exports; returns eval_results.txt as a dict
    and the sentences of predictions.txt as lists of `word gold predicted` rows."""
    warm_python.run([sys.executable, os.path.join(ROOT, "run_ner.py"), f"--data_dir={data_dir}",
                     f"--output_dir={output_dir}", "--do_train", "--do_eval", "--do_predict",
                     "--max_seq_length=16", "--doc_stride=8", "--train_batch_size=4",
                     f"--export_dir={export_dir}", *argv], check=True, cwd=ROOT,
                    capture_output=True)
    results = dict(line.strip().split(" = ") for line in
                   (output_dir / "eval_results.txt").read_text().splitlines())
    predictions = (output_dir / "predictions.txt").read_text(encoding="utf-8")
    assert predictions.endswith("\n\n")
    sentences = [[line.split(" ") for line in s.split("\n")] for s in predictions[:-2].split("\n\n")]
    assert all(len(row) == 3 for s in sentences for row in s)
    assert (output_dir / "export_meta.json").is_file()
    assert (export_dir / "saved_model.pb").is_file()
    return results, sentences


@pytest.mark.slow
def test_train_eval_predict_and_export(tmp_path, uncased_vocab_file):
    model_dir = tmp_path / "model"
    save_weights(BertEncoder(TINY_CONFIG),
                 str(model_dir))
    shutil.copy(uncased_vocab_file, model_dir / "vocab.txt")
    results, sentences = _run_ner(os.path.join(FIXTURES, "conll_tiny"), tmp_path / "run",
                                  tmp_path / "serving" / "1", f"--init_checkpoint={model_dir}",
                                  "--num_train_epochs=1")
    assert {"eval_f1", "eval_precision", "eval_recall", "eval_PER_f1", "global_step"} <= set(results)
    assert [len(s) for s in sentences] == [11, 2, 22, 7]
    assert sentences[1][0][:2] == ["PARIS", "B-LOC"]  # the test split


def _house_sentence(i):
    """`word tag` lines of a dated sentence with a colour, in the words the
    release's spiece.model was learned on."""
    words = ["On", "May", str(i % 28 + 1), ",", str(1900 + 7 * i), "the", COLOURS[i % 3], "house",
             "counted", str(i % 9), "doors", "."]
    tags = ["O", "B-DATE", "I-DATE", "I-DATE", "I-DATE", "O", "B-COL"] + ["O"] * 5
    return "".join(f"{word} {tag}\n" for word, tag in zip(words, tags))


@pytest.mark.slow
def test_xlnet_from_the_original_layout_serves_its_predictions(tmp_path, xlnet_release):
    data_dir = tmp_path / "houses"
    data_dir.mkdir()
    for split, rows in (("train", range(24)), ("dev", range(100, 104)), ("test", range(200, 204))):
        (data_dir / f"{split}.txt").write_text("\n".join(_house_sentence(i) for i in rows))
    output_dir, export_dir = tmp_path / "run", tmp_path / "serving" / "1"
    # Sentences of 20 pieces: two windows each. Trained until its tags are mixed (at 1e-2 the
    # run fell to all "O" on an Intel Xeon with AVX-512, though not on AMD EPYC hosts).
    results, sentences = _run_ner(data_dir, output_dir, export_dir,
                                  f"--init_checkpoint={xlnet_release}", "--num_train_epochs=10",
                                  "--learning_rate=1e-3")
    assert {"eval_f1", "eval_DATE_f1", "eval_COL_f1", "global_step"} <= set(results)
    assert [s[6][:2] for s in sentences] == [[COLOURS[i % 3], "B-COL"] for i in range(200, 204)]
    with open(output_dir / "export_meta.json", encoding="utf-8") as f:
        values = json.load(f)
    assert values["encoder_family"] == "xlnet" and values["encoder_config"] == XLNET_CONFIG.to_dict()
    assert values["do_lower_case"] is False  # XLNet's default, as the original's --uncased
    assert (output_dir / "spiece.model").is_file()

    texts = [" ".join(word for word, _, _ in s) for s in sentences]
    served = tf.saved_model.load(str(export_dir)).signatures["serving_default"](
        text=tf.constant(texts))
    expected = [[(kind, " ".join(row[0] for row in s[first:last + 1]))
                 for kind, first, last in get_entities([row[2] for row in s])] for s in sentences]
    assert sum(map(len, expected)) > len(sentences)  # not a vacuous check
    for row, entities in enumerate(expected):
        count = int(served["num_entities"][row])
        assert [(kind.decode(), text.decode()) for kind, text in zip(
            served["entity_types"][row][:count].numpy(),
            served["entity_texts"][row][:count].numpy())] == entities, texts[row]


@pytest.mark.slow
def test_a_plain_tag_set_is_scored_by_token_accuracy_and_exported_with_its_scheme(
        tmp_path, uncased_vocab_file):
    data_dir = tmp_path / "pos"
    data_dir.mkdir()
    sentence = "".join(f"{w} {t}\n" for w, t in (("the", "DT"), ("red", "JJ"), ("house", "NN"), (".", ".")))
    for split in ("train", "dev", "test"):
        (data_dir / f"{split}.txt").write_text(sentence + "\n" + sentence)
    model_dir = tmp_path / "model"
    save_weights(BertEncoder(TINY_CONFIG), str(model_dir))
    shutil.copy(uncased_vocab_file, model_dir / "vocab.txt")
    results, sentences = _run_ner(data_dir, tmp_path / "run", tmp_path / "serving" / "1",
                                  f"--init_checkpoint={model_dir}", "--tag_scheme=tags",
                                  "--num_train_epochs=1")
    assert {"eval_accuracy", "eval_loss", "prior_loss", "train_loss"} <= set(results)
    assert not any(k.endswith("f1") for k in results)
    predicted = [row[2] for s in sentences for row in s]
    assert float(results["eval_accuracy"]) == sum(
        p == row[1] for p, row in zip(predicted, [r for s in sentences for r in s])) / len(predicted)
    assert set(predicted) <= {".", "DT", "JJ", "NN"}
    meta = json.loads((tmp_path / "run" / "export_meta.json").read_text())
    assert meta["tag_scheme"] == "tags" and meta["label_list"] == [".", "DT", "JJ", "NN"]
