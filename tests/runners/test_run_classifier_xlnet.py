"""run_classifier.py on XLNet from its command line alone: an original-layout
checkpoint with `xlnet_config.json` and `spiece.model` beside it picks the
family and the vocabulary; a custom TSV trains, eval_results.txt is BERT's, and
the SavedModel serves raw text as the trained model scores Python's features;
the output_dir, with its config and vocabulary, is an `--init_checkpoint`, and
every file is as readable as the umask allows. A pretraining output_dir's config
(`bi_data`, memory) fine-tunes as the original's fine-tuning does, without them:
any batch size, each row's output its own. A vocabulary of the other family is
refused naming both files; messages name XLNet's file, field and flag."""

import json
import os
import shutil
import sys

import numpy as np
import pytest
import tensorflow as tf

from checkpoints.companion_files import (resolve_encoder_config, resolve_model_files,
                                         resolve_vocab_file)
from checkpoints.loader import CheckpointMismatchError, load_into
from export.export_meta import read_export_meta
from export.export_model import build_task_model
from families.bert.config import ConfigError
from families.xlnet.pretrainer import XLNetPretrainer
from tests import warm_python
from tests.conftest import ROOT, modes_unlike_plain_writes
from tests.runners.xlnet_release import CONFIG, PRETRAINING_CONFIG
from tests.tiny_config import TINY_CONFIG

SEQ_LENGTH = 32
COLOURS = ("red", "old", "tall")
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}
UMASK = 0o027  # a model server of the group reads the run and the export


def sentence(i):
    return f"On May {i % 28 + 1}, {1900 + 7 * i} the {COLOURS[i % 3]} house counted {i % 9} doors."


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    """Is the house red? 24 training and 6 dev sentences."""
    directory = tmp_path_factory.mktemp("houses")
    for split, rows in (("train", range(24)), ("dev", range(100, 106))):
        lines = ["sentence\tlabel"] + [f"{sentence(i)}\t{'yes' if i % 3 == 0 else 'no'}"
                                       for i in rows]
        (directory / f"{split}.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(directory)


def run(script, *argv):
    return warm_python.run([sys.executable, os.path.join(ROOT, script), *argv], cwd=ROOT, env=ENV,
                           capture_output=True, text=True, timeout=600, umask=UMASK)


def test_fine_tunes_exports_and_serves_raw_text(xlnet_pretrained, data_dir, tmp_path):
    output_dir, export_dir = tmp_path / "out", tmp_path / "serving" / "1"
    # An odd evaluation batch: 6 dev rows in batches of 5 and 1.
    done = run("run_classifier.py", "--task_name=custom", f"--data_dir={data_dir}",
               "--text_a_column=sentence", f"--init_checkpoint={xlnet_pretrained}", "--do_train",
               "--do_eval", f"--max_seq_length={SEQ_LENGTH}", "--train_batch_size=8",
               "--eval_batch_size=5", "--learning_rate=1e-3", "--num_train_epochs=2",
               f"--output_dir={output_dir}", f"--export_dir={export_dir}")
    assert done.returncode == 0, done.stderr[-3000:]

    with open(output_dir / "eval_results.txt", encoding="utf-8") as f:
        results = dict(line.rstrip("\n").split(" = ") for line in f)
    assert sorted(results) == ["eval_accuracy", "eval_loss", "global_step", "loss", "prior_loss",
                               "train_loss"]
    assert results["global_step"] == "6"  # 24 examples / batch 8 x 2 epochs
    with open(output_dir / "export_meta.json", encoding="utf-8") as f:
        values = json.load(f)
    assert PRETRAINING_CONFIG.bi_data and PRETRAINING_CONFIG.for_fine_tuning() == CONFIG
    assert values["encoder_family"] == "xlnet" and values["encoder_config"] == CONFIG.to_dict()
    assert values["do_lower_case"] is False  # XLNet's default: cased, as the original's --uncased
    assert resolve_model_files(init_checkpoint=str(output_dir)) == (
        str(output_dir / "spiece.model"), CONFIG)
    assert modes_unlike_plain_writes(UMASK, str(output_dir), str(export_dir)) == {}

    meta = read_export_meta(str(output_dir))
    model = build_task_model(meta)
    load_into(model, str(output_dir))
    texts = [sentence(i) for i in range(200, 205)]
    expected = tf.nn.softmax(model(meta.text_side().encode_texts(texts, None, SEQ_LENGTH))[
        "logits"]).numpy()
    serve = tf.saved_model.load(str(export_dir)).signatures["serving_default"]

    def probabilities(rows):
        return serve(text_a=tf.constant(rows))["probabilities"].numpy()

    # The same float32 computation on the same ids, up to op scheduling.
    np.testing.assert_allclose(probabilities(texts), expected, rtol=1e-5, atol=1e-6)
    alone = np.concatenate([probabilities([text]) for text in texts])
    for size in (1, 3, 5):
        np.testing.assert_allclose(probabilities(texts[:size]), alone[:size], rtol=1e-5, atol=1e-6)


def test_a_vocabulary_of_the_other_family_is_refused_naming_both_files(
        xlnet_release, tmp_path, uncased_vocab_file):
    xlnet_config = os.path.join(os.path.dirname(xlnet_release), "xlnet_config.json")
    with pytest.raises(ConfigError) as error:
        resolve_model_files(uncased_vocab_file, xlnet_config)
    assert uncased_vocab_file in str(error.value) and xlnet_config in str(error.value)
    assert "spiece.model" in str(error.value)

    bert_config = str(tmp_path / "bert_config.json")
    TINY_CONFIG.to_json_file(bert_config)
    spiece_model = os.path.join(os.path.dirname(xlnet_release), "spiece.model")
    with pytest.raises(ConfigError) as error:
        resolve_model_files(spiece_model, bert_config)
    assert spiece_model in str(error.value) and bert_config in str(error.value)
    assert "vocab.txt" in str(error.value)


def test_the_family_picks_the_vocabulary_beside_the_checkpoint(xlnet_release, tmp_path,
                                                               uncased_vocab_file):
    directory = shutil.copytree(os.path.dirname(xlnet_release), tmp_path / "both")
    shutil.copy(uncased_vocab_file, directory / "vocab.txt")
    vocab_file, config = resolve_model_files(init_checkpoint=str(directory / "xlnet_model.ckpt"))
    assert vocab_file == str(directory / "spiece.model") and config == CONFIG


def test_task_models_take_the_fine_tuning_config_of_a_pretraining_run(xlnet_pretrained):
    """Every task and export finds its config with `resolve_model_files`;
    pretraining and conversion read the file as written."""
    assert resolve_model_files(init_checkpoint=xlnet_pretrained)[1] == CONFIG
    assert resolve_encoder_config(init_checkpoint=xlnet_pretrained) == PRETRAINING_CONFIG


def test_messages_name_xlnet_s_file_field_and_flag(xlnet_release, tmp_path):
    spiece_model = os.path.join(os.path.dirname(xlnet_release), "spiece.model")
    # Every registered family's config file is named; XLNet's among them.
    with pytest.raises(ConfigError, match="XLNet's xlnet_config.json.*no bert_config.json, "
                                          "xlnet_config.json, .*config.json beside"):
        resolve_encoder_config(init_checkpoint=str(tmp_path))
    with pytest.raises(FileNotFoundError, match="pass --spiece_model_file \\(no spiece.model beside"):
        resolve_vocab_file(init_checkpoint=str(tmp_path), family="xlnet")
    small = str(tmp_path / "xlnet_config.json")
    CONFIG.replace(n_token=100).to_json_file(small)
    with pytest.raises(ConfigError) as error:
        resolve_model_files(spiece_model, small)
    assert f"{small} has n_token=100" in str(error.value) and "config with n_token=" in str(error.value)
    assert "--spiece_model_file" in str(error.value) and "vocab_size" not in str(error.value)
    with pytest.raises(CheckpointMismatchError,
                       match="n_token differs: check --spiece_model_file and the config's n_token"):
        load_into(XLNetPretrainer(CONFIG.replace(n_token=100)), xlnet_release)
