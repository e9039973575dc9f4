"""The classifier SavedModel in a fresh tensorflow + tensorflow_text process:
its three signatures equal the in-process model on real sentences and on
hostile text; the export_meta.json contract and both export paths (CLI from
a run's output_dir, `export_for_runner` from a trained model)."""

import base64
import json
import os

import keras
import numpy as np
import pytest
import tensorflow as tf

from checkpoints.ours import save_weights
from data.text.segments import encode_texts
from data.text.tokenization import FullTokenizer
from export.export_meta import ExportMeta, ExportMetaError, read_export_meta, write_export_meta
from export.export_model import build_task_model, export_for_runner, export_model
from tasks.classification.serving import example_protos
from tests.conftest import modes_unlike_plain_writes, umask
from tests.export_harness import (HOSTILE_TEXTS, TINY_CONFIG, check_warmup_requests, run_fresh,
                                  sentences)

SEQ_LENGTH = 48
UMASK = 0o027  # a server's group may read the exports, others may not
LABELS = ("contradiction", "entailment", "neutral")

_LOADER = """
import base64, json
import numpy as np
import tensorflow as tf
import tensorflow_text  # noqa: F401

def strings(key):
    return tf.constant([base64.b64decode(t) for t in ARGS[key]])

arrays, report = {}, {}
for name in ("pair", "single"):
    model = tf.saved_model.load(ARGS[name])
    serve = model.signatures["serving_default"]
    texts = {"text_a": strings("texts_a")}
    hostile = {"text_a": strings("hostile")}
    if name == "pair":
        texts["text_b"] = strings("texts_b")
        hostile["text_b"] = strings("hostile")[::-1]
    for prefix, outputs in (("text", serve(**texts)), ("hostile", serve(**hostile)),
                            ("examples", model.signatures["serve_examples"](
                                examples=strings(name + "_examples"))),
                            ("ids", model.signatures["serve_ids"](
                                **{k: tf.constant(v) for k, v in ARGS[name + "_ids"].items()}))):
        for key, value in outputs.items():
            value = value.numpy()
            arrays[f"{name}/{prefix}/{key}"] = value.astype(bytes) if value.dtype == object else value
    report[name] = {"cli": saved_model_cli_show(ARGS[name]),
                    "vocab": open(model.vocab_file.asset_path.numpy(), "rb").read().decode()}
np.savez(ARGS["arrays"], **arrays)
print(json.dumps(report))
"""


def _b64(texts):
    return [base64.b64encode(t.encode("utf-8")).decode() for t in texts]


@pytest.fixture(scope="module")
def exported(tmp_path_factory, uncased_vocab_file):
    """A 3-class pair classifier exported from a run's output_dir with the CLI
    path, and a single-sentence regression model with `export_for_runner`; both
    under umask `UMASK`."""
    tmp = tmp_path_factory.mktemp("classifier")
    with umask(UMASK):
        keras.utils.set_random_seed(5)
        pair_meta = ExportMeta("classification", TINY_CONFIG, uncased_vocab_file,
                               max_seq_length=SEQ_LENGTH, label_list=LABELS, paired=True)
        run_dir = str(tmp / "run")
        pair_model = build_task_model(pair_meta)
        save_weights(pair_model, run_dir)
        write_export_meta(run_dir, pair_meta)
        pair_dir = export_model(read_export_meta(run_dir), str(tmp / "pair" / "1"), run_dir)

        single_meta = ExportMeta("regression", TINY_CONFIG, uncased_vocab_file,
                                 max_seq_length=SEQ_LENGTH)
        single_model = build_task_model(single_meta)
        single_dir = export_for_runner(single_model, single_meta, str(tmp / "single" / "1"))
        return {"tmp": tmp, "pair": (pair_model, pair_dir), "single": (single_model, single_dir),
                "vocab_file": uncased_vocab_file}


@pytest.fixture(scope="module")
def loaded(exported):
    texts = sentences()
    tokenizer = FullTokenizer(exported["vocab_file"], do_lower_case=True)
    ids = {"pair": encode_texts(tokenizer, texts, texts[::-1], SEQ_LENGTH),
           "single": encode_texts(tokenizer, texts, None, SEQ_LENGTH)}
    arrays_file = str(exported["tmp"] / "loaded.npz")
    args = dict(pair=exported["pair"][1], single=exported["single"][1], arrays=arrays_file,
                texts_a=_b64(texts), texts_b=_b64(texts[::-1]), hostile=_b64(HOSTILE_TEXTS))
    for name in ("pair", "single"):
        args[name + "_ids"] = {k: v.tolist() for k, v in ids[name].items()}
        args[name + "_examples"] = [base64.b64encode(p).decode() for p in example_protos(ids[name])]
    report = json.loads(run_fresh(_LOADER, exported["tmp"], **args).strip().splitlines()[-1])
    return dict(np.load(arrays_file)), report, ids, tokenizer


def _expected(model, inputs, regression):
    logits = np.asarray(model(inputs, training=False)["logits"])
    if regression:
        return {"score": logits[:, 0]}
    probabilities = np.asarray(tf.nn.softmax(logits))
    label_ids = probabilities.argmax(-1)
    return {"label_ids": label_ids, "probabilities": probabilities,
            "label_names": np.array([LABELS[i].encode() for i in label_ids], dtype=object)}


def _check(got, expected):
    assert set(got) == set(expected)
    for key, value in expected.items():
        if value.dtype == object:
            assert list(got[key]) == list(value), key
        elif key == "label_ids":
            np.testing.assert_array_equal(got[key], value)
            assert got[key].dtype == np.int32
        else:
            np.testing.assert_allclose(got[key], value, atol=1e-5, err_msg=key)


def _outputs(arrays, prefix):
    return {k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)}


@pytest.mark.parametrize("name", ["pair", "single"])
def test_signatures_equal_in_process_model(exported, loaded, name):
    arrays, _, ids, _ = loaded
    model = exported[name][0]
    expected = _expected(model, ids[name], regression=name == "single")
    for signature in ("text", "examples", "ids"):
        _check(_outputs(arrays, f"{name}/{signature}/"), expected)


@pytest.mark.parametrize("name", ["pair", "single"])
def test_hostile_text_is_classified_as_training_packs_it(exported, loaded, name):
    arrays, _, _, tokenizer = loaded
    hostile = list(HOSTILE_TEXTS)
    inputs = encode_texts(tokenizer, hostile, hostile[::-1] if name == "pair" else None, SEQ_LENGTH)
    got = _outputs(arrays, f"{name}/hostile/")
    _check(got, _expected(exported[name][0], inputs, regression=name == "single"))
    for value in got.values():
        if value.dtype.kind == "f":
            assert np.all(np.isfinite(value))


def test_saved_model_cli_and_assets(exported, loaded):
    _, report, _, _ = loaded
    pair = report["pair"]["cli"]
    for signature in ("serving_default", "serve_examples", "serve_ids"):
        assert f"signature_def['{signature}']" in pair
    for name in ("text_a", "text_b", "examples", "input_word_ids", "label_ids", "label_names",
                 "probabilities"):
        assert f"['{name}']" in pair, name
    single = report["single"]["cli"]
    assert "['score']" in single and "['text_b']" not in single and "['label_ids']" not in single
    with open(exported["vocab_file"], encoding="utf-8") as f:
        assert report["pair"]["vocab"] == f.read()


def test_the_run_and_both_exports_have_the_modes_of_plain_writes(exported):
    """A model server running as another user of the group reads every path."""
    assert modes_unlike_plain_writes(UMASK, str(exported["tmp"] / "run"), exported["pair"][1],
                                     exported["single"][1]) == {}


@pytest.mark.parametrize("name", ["pair", "single"])
def test_warmup_requests_run(exported, name):
    outputs = ["score"] if name == "single" else ["label_ids", "label_names", "probabilities"]
    check_warmup_requests(exported[name][1], dict.fromkeys(
        ("serving_default", "serve_examples", "serve_ids"), outputs))


def test_export_meta_errors_name_the_file_and_field(tmp_path, uncased_vocab_file):
    with pytest.raises(ExportMetaError, match="export_meta.json not found"):
        read_export_meta(str(tmp_path))
    meta = ExportMeta("ner", TINY_CONFIG, uncased_vocab_file, label_list=("O", "B-PER"))
    write_export_meta(str(tmp_path), meta)
    assert read_export_meta(str(tmp_path)) == ExportMeta(
        "ner", TINY_CONFIG, os.path.join(str(tmp_path), "vocab.txt"), label_list=("O", "B-PER"))
    path = tmp_path / "export_meta.json"
    values = json.loads(path.read_text())
    path.write_text(json.dumps({**values, "labels": ["O"]}))
    with pytest.raises(ExportMetaError, match=r"export_meta.json: unknown field\(s\) \['labels'\]"):
        read_export_meta(str(tmp_path))
    path.write_text(json.dumps({**values, "label_list": None}))
    with pytest.raises(ExportMetaError, match="export_meta.json: task 'tagging' needs label_list"):
        read_export_meta(str(tmp_path))
