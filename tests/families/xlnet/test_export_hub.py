"""The TF Hub pair of an XLNet, written by `export_hub.py`'s command line from an
original-layout checkpoint (config and `spiece.model` beside it) and from
explicit flags, then loaded in a fresh process with `tf.saved_model.load` and
`hub.KerasLayer`: the preprocessor packs as the Python text side, the encoder
computes as the Keras `XLNetEncoder`, and fine-tuning through the hub layer
moves its weights."""

import hashlib
import json
import os
import sys

import keras
import numpy as np
import pytest

from checkpoints.loader import load_into
from checkpoints.ours import save_weights
from contracts import registry
from families.xlnet.encoder import XLNetEncoder
from tests import warm_python
from tests.conftest import ROOT
from tests.export_harness import FIT_REPORT, HOSTILE_TEXTS, run_fresh
from tests.families.xlnet.spiece_model import LINES
from tests.runners.xlnet_release import CONFIG, write_xlnet_release

PAIR_SEQ_LENGTH = 24
EXPLICIT_SEQ_LENGTH = 32
SENTENCES = (LINES[:6] + ["Caf\u00e9 ``quoted'' text: 1,000 rooms, 25,7 doors.", "ROOMS"]
             + HOSTILE_TEXTS)
# The SavedModel and the Keras model run the same float32 ops on the same ids; only
# the order of summation inside a kernel may differ. LayerNorm rescales every
# block's output to about unit size, and each of the n_layer blocks sums at most
# d_inner products per output, so they agree within n_layer * d_inner roundings.
TOLERANCE = CONFIG.n_layer * CONFIG.d_inner * float(np.finfo(np.float32).eps)

_LOADER = FIT_REPORT + """
import hashlib
import tensorflow as tf
import tensorflow_hub as hub
import tensorflow_text  # noqa: F401
import tf_keras

arrays, report = {}, {}

def put(prefix, outputs):
    for key, value in outputs.items():
        arrays[prefix + key] = (tf.stack(value) if isinstance(value, list) else value).numpy()

def sha256(asset):
    with open(asset.asset_path.numpy(), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()

sentences = tf.constant(ARGS["sentences"])
for name in ("beside", "explicit"):
    pre = tf.saved_model.load(ARGS[name]["preprocessor"])
    enc = tf.saved_model.load(ARGS[name]["encoder"])
    packed = pre(sentences)
    put(f"{name}/single/", packed)
    put(f"{name}/pairs/", pre.bert_pack_inputs(
        [pre.tokenize(sentences[:-1]), pre.tokenize(sentences[1:])],
        seq_length=ARGS["pair_seq_length"]))
    put(f"{name}/encoder/", enc(packed, training=False))
    put(f"{name}/signature/", enc.signatures["serving_default"](**packed))
    put(f"{name}/keras_layer/", hub.KerasLayer(ARGS[name]["encoder"])(packed))
    report[name] = {
        "tokens": pre.tokenize(sentences).to_list(),
        "special": {k: int(v) for k, v in pre.tokenize.get_special_tokens_dict().items()},
        "vocab": [sha256(pre.vocab_file), sha256(enc.vocab_file)],
        "do_lower_case": bool(enc.do_lower_case.numpy()),
        "signatures": sorted(enc.signatures), "mlm": hasattr(enc, "mlm"),
        "trainable_variables": len(enc.trainable_variables)}

tf_keras.utils.set_random_seed(0)
sentence = tf_keras.layers.Input(shape=(), dtype=tf.string)
encoder = hub.KerasLayer(ARGS["explicit"]["encoder"], trainable=True)
pooled = encoder(hub.KerasLayer(ARGS["explicit"]["preprocessor"])(sentence))["pooled_output"]
model = tf_keras.Model(sentence, tf_keras.layers.Dense(2)(pooled))
model.compile(tf_keras.optimizers.Adam(1e-3),
              tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
report["fit"] = fit_report(model, encoder.trainable_weights, texts)
np.savez(ARGS["arrays"], **arrays)
print(json.dumps(report))
"""


def export_hub_command(*argv):
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}
    done = warm_python.run([sys.executable, "-m", "export.export_hub", *argv], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stderr


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """Two exports of one XLNet-tiny: from the original layout with its files beside
    (pretrained: no sequence summary), and from our weights of the same backbone
    with a summary, given `--bert_config_file`, `--spiece_model_file`,
    `--do_lower_case` and `--seq_length`; the Keras encoder of those weights."""
    tmp = tmp_path_factory.mktemp("xlnet_hub")
    release = write_xlnet_release(tmp / "release")
    keras.utils.set_random_seed(0)
    reference = XLNetEncoder(CONFIG)
    load_into(reference, release)  # all but the summary, which keeps its initial weights
    weights = str(tmp / "weights")
    save_weights(reference, weights)
    os.remove(os.path.join(weights, "xlnet_config.json"))  # the flags must name it
    paths = {name: {"preprocessor": str(tmp / name / "preprocessor"),
                    "encoder": str(tmp / name / "encoder")} for name in ("beside", "explicit")}
    log = export_hub_command(f"--init_checkpoint={release}", f"--export_dir={tmp / 'beside'}")
    export_hub_command(f"--init_checkpoint={weights}", f"--export_dir={tmp / 'explicit'}",
                       f"--bert_config_file={tmp / 'release' / 'xlnet_config.json'}",
                       f"--spiece_model_file={tmp / 'release' / 'spiece.model'}",
                       "--do_lower_case", f"--seq_length={EXPLICIT_SEQ_LENGTH}")
    return {"tmp": tmp, "paths": paths, "log": log, "reference": reference,
            "spiece_model": str(tmp / "release" / "spiece.model")}


@pytest.fixture(scope="module")
def loaded(exported):
    arrays_file = str(exported["tmp"] / "loaded.npz")
    texts = LINES[:8]
    stdout = run_fresh(_LOADER, exported["tmp"], sentences=SENTENCES,
                       pair_seq_length=PAIR_SEQ_LENGTH, arrays=arrays_file, texts=texts,
                       labels=[int("red" in t) for t in texts], **exported["paths"])
    return dict(np.load(arrays_file)), json.loads(stdout.strip().splitlines()[-1])


def _outputs(arrays, prefix):
    return {k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)}


@pytest.mark.parametrize("name, lower, seq_length", [("beside", False, 128),
                                                     ("explicit", True, EXPLICIT_SEQ_LENGTH)])
def test_preprocessor_packs_as_the_python_text_side(exported, loaded, name, lower, seq_length):
    arrays, report = loaded
    text = registry.text_side_for("xlnet", exported["spiece_model"], lower)
    assert report[name]["tokens"] == [text.encode(t) for t in SENTENCES]
    expected = text.encode_texts(SENTENCES, max_seq_length=seq_length)
    single = _outputs(arrays, f"{name}/single/")
    assert set(single) == {"input_word_ids", "input_mask", "input_type_ids"}
    for key, value in expected.items():
        np.testing.assert_array_equal(single[key], value, err_msg=key)
    pairs = _outputs(arrays, f"{name}/pairs/")
    for i, (a, b) in enumerate(zip(SENTENCES[:-1], SENTENCES[1:])):
        packed = text.pack(text.encode(a), text.encode(b), PAIR_SEQ_LENGTH)
        for key, value in packed.items():
            np.testing.assert_array_equal(pairs[key][i], value, err_msg=f"{key} row {i}")
    special = text.special_ids
    assert report[name]["special"] == {
        "vocab_size": special.vocab_size, "start_of_sequence_id": special.cls,
        "end_of_segment_id": special.sep, "padding_id": special.pad, "mask_id": special.mask}
    with open(exported["spiece_model"], "rb") as f:
        assert report[name]["vocab"] == [hashlib.sha256(f.read()).hexdigest()] * 2
    assert report[name]["do_lower_case"] is lower


@pytest.mark.parametrize("name, pooled", [("beside", False), ("explicit", True)])
def test_encoder_equals_the_keras_encoder(exported, loaded, name, pooled):
    """Through `tf.saved_model.load` (call and signature) and `hub.KerasLayer`. The
    pretrained checkpoint has no sequence summary: that export's `pooled_output`
    comes from a fresh one, which the log names."""
    arrays, report = loaded
    reference = exported["reference"]
    inputs = _outputs(arrays, f"{name}/single/")
    expected = {k: np.asarray(v) if k != "encoder_outputs" else np.stack(v)
                for k, v in reference(inputs, training=False).items()}
    expected["default"] = expected["pooled_output"]
    compared = ["sequence_output", "encoder_outputs"]
    compared += ["pooled_output", "default"] if pooled else []
    for how in ("encoder", "signature", "keras_layer"):
        got = _outputs(arrays, f"{name}/{how}/")
        assert set(got) == {"default", "pooled_output", "sequence_output", "encoder_outputs"}
        for key in compared:
            scale = max(1.0, float(np.abs(expected[key]).max()))
            np.testing.assert_allclose(got[key], expected[key], rtol=0, atol=TOLERANCE * scale,
                                       err_msg=f"{how} {key}")
    assert report[name]["signatures"] == ["serving_default"] and report[name]["mlm"] is False
    assert report[name]["trainable_variables"] == len(reference.trainable_variables)
    if not pooled:
        assert "has no value for summary/kernel, summary/bias" in exported["log"]


def test_fine_tuning_through_hub_keras_layer_trains_the_encoder(exported, loaded):
    fit = loaded[1]["fit"]
    reference = exported["reference"]
    assert fit["trainable"] == len(reference.trainable_variables)
    assert fit["losses"][1] < fit["losses"][0], fit["losses"]
    # mask_emb serves only the query stream, which the encoder does not run.
    assert fit["changed"] == len(reference.trainable_variables) - 1, fit
