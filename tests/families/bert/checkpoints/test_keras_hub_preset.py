"""keras-hub presets: ours -> keras-hub -> ours is lossless, keras-hub loads what we
write (and we load what it writes), MiniLM gives keras-hub's outputs, and a damaged
preset is an error naming the file or variable."""

import json
import os
import shutil
import sys

import h5py
import keras
import numpy as np
import pytest

from families.bert.checkpoints import keras_hub_preset
from checkpoints.companion_files import resolve_encoder_config, resolve_vocab_file
from checkpoints.loader import CheckpointMismatchError, detect_format, load_into
from checkpoints.ours import read_weights, save_weights
from convert_checkpoint import convert
from data.text.segments import encode_texts
from data.text.tokenization import FullTokenizer
from data.text.vocab import Vocab
from export.hub_encoder import build_hub_model
from families.bert.encoder import BertEncoder
from tests import warm_python
from tests.conftest import ROOT
from tests.export_harness import TINY_CONFIG, sentences
from tests.references import minilm_dir

# Exact GELU and two dropout rates: what a keras-hub config cannot say, kept anyway.
CONFIG = TINY_CONFIG.replace(hidden_act="gelu", attention_probs_dropout_prob=0.2)


def _needs_keras_hub():
    return pytest.importorskip("keras_hub", reason="keras-hub (a test dependency) is not installed")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, uncased_vocab_file):
    """A random tiny pretrainer saved as ours, and its keras-hub preset."""
    tmp = tmp_path_factory.mktemp("keras_hub")
    keras.utils.set_random_seed(5)
    pretrainer, _ = build_hub_model(CONFIG)
    ours = str(tmp / "ours")
    save_weights(pretrainer, ours)
    shutil.copyfile(uncased_vocab_file, os.path.join(ours, "vocab.txt"))
    preset = str(tmp / "preset")
    convert(ours, preset, "keras_hub")
    return {"tmp": tmp, "ours": ours, "preset": preset, "pretrainer": pretrainer,
            "vocab_file": uncased_vocab_file}


def _inputs(vocab_file, max_seq_length=48):
    return encode_texts(FullTokenizer(vocab_file, do_lower_case=True), sentences(),
                        max_seq_length=max_seq_length)


def _keras_hub_inputs(inputs):
    return {"token_ids": inputs["input_word_ids"], "segment_ids": inputs["input_type_ids"],
            "padding_mask": inputs["input_mask"]}


def test_preset_layout_and_round_trip_are_lossless(tiny):
    preset = tiny["preset"]
    for name in ("config.json", "model.weights.h5", "tokenizer.json", "metadata.json",
                 "assets/tokenizer/vocabulary.txt"):
        assert os.path.isfile(os.path.join(preset, name)), name
    with open(os.path.join(preset, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    assert (config["class_name"], config["registered_name"]) == ("BertBackbone", "keras_hub>BertBackbone")
    assert config["config"]["hidden_dim"] == CONFIG.hidden_size
    with open(os.path.join(preset, "tokenizer.json"), encoding="utf-8") as f:
        tokenizer = json.load(f)["config"]
    assert tokenizer["lowercase"] and tokenizer["strip_accents"]

    assert detect_format(preset) == "keras_hub"
    assert resolve_encoder_config(init_checkpoint=preset) == CONFIG
    vocab_file = resolve_vocab_file(init_checkpoint=preset)
    assert Vocab.from_file(vocab_file).tokens == Vocab.from_file(tiny["vocab_file"]).tokens

    back = str(tiny["tmp"] / "back")
    convert(preset, back, "ours")
    original, returned = read_weights(tiny["ours"]), read_weights(back)
    encoder_paths = set(keras_hub_preset.backbone_paths(CONFIG.num_hidden_layers))
    assert set(returned) == encoder_paths  # a BertBackbone has no pretraining heads: none invented
    assert encoder_paths < set(original)
    for path in encoder_paths:
        np.testing.assert_array_equal(returned[path], original[path], err_msg=path)
    assert resolve_encoder_config(init_checkpoint=back) == CONFIG


def test_runner_reads_a_preset_alone(tiny):
    """`--init_checkpoint=<preset>` is enough: config, vocabulary and weights come from it."""
    lines = tiny["tmp"] / "lines.txt"
    lines.write_text("\n".join(sentences()[:3]) + "\n", encoding="utf-8")
    output = tiny["tmp"] / "features.jsonl"
    warm_python.run([sys.executable, os.path.join(ROOT, "extract_features.py"),
                     f"--init_checkpoint={tiny['preset']}", f"--input_file={lines}",
                     f"--output_file={output}", "--layers=-1", "--max_seq_length=16"],
                    check=True, cwd=ROOT, capture_output=True,
                    env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
    features = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert len(features) == 3
    inputs = encode_texts(FullTokenizer(tiny["vocab_file"], True), sentences()[:1], max_seq_length=16)
    expected = np.asarray(tiny["pretrainer"].encoder(inputs)["sequence_output"])[0, 0]
    got = features[0]["features"][0]["layers"][0]["values"]
    np.testing.assert_allclose(got, expected, atol=1e-4)


def _copy(tiny, name):
    damaged = str(tiny["tmp"] / name)
    shutil.copytree(tiny["preset"], damaged)
    return damaged


def _edit_json(path, edit):
    with open(path, encoding="utf-8") as f:
        values = json.load(f)
    edit(values)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(values, f)


def test_damaged_presets_name_the_file_or_variable(tiny):
    model = BertEncoder(CONFIG)

    no_weights = _copy(tiny, "no_weights")
    os.remove(os.path.join(no_weights, "model.weights.h5"))
    with pytest.raises(keras_hub_preset.PresetError, match=r"model\.weights\.h5: missing"):
        load_into(model, no_weights)

    other_class = _copy(tiny, "other_class")
    _edit_json(os.path.join(other_class, "config.json"),
               lambda c: c.update(class_name="GPT2Backbone"))
    with pytest.raises(keras_hub_preset.PresetError, match=r"config\.json: class_name 'GPT2Backbone'"):
        resolve_encoder_config(init_checkpoint=other_class)

    no_key = _copy(tiny, "no_key")
    _edit_json(os.path.join(no_key, "config.json"), lambda c: c["config"].pop("num_heads"))
    with pytest.raises(keras_hub_preset.PresetError, match=r"config\.json: config lacks \['num_heads'\]"):
        resolve_encoder_config(init_checkpoint=no_key)

    wrong_shape = _copy(tiny, "wrong_shape")
    _edit_json(os.path.join(wrong_shape, "config.json"),
               lambda c: c["config"].update(intermediate_dim=2 * CONFIG.intermediate_size))
    wider = BertEncoder(resolve_encoder_config(init_checkpoint=wrong_shape))
    with pytest.raises(CheckpointMismatchError, match=r"transformer_layer_0/intermediate/kernel: "
                                                      r"checkpoint has shape \[32, 64\]"):
        load_into(wider, wrong_shape)

    lost_variable = _copy(tiny, "lost_variable")
    with h5py.File(os.path.join(lost_variable, "model.weights.h5"), "a") as h5:
        del h5["layers/transformer_encoder_1/_feedforward_layer_norm/vars/1"]
    with pytest.raises(CheckpointMismatchError, match=r"transformer_layer_1/output_layer_norm/beta"):
        load_into(BertEncoder(CONFIG), lost_variable, strict=True)


def test_keras_hub_loads_our_preset_and_we_load_its_own(tiny):
    keras_hub = _needs_keras_hub()
    preset, ours = tiny["preset"], tiny["pretrainer"].encoder
    backbone = keras_hub.models.BertBackbone.from_preset(preset)
    assert backbone.count_params() == ours.count_params()
    np.testing.assert_array_equal(backbone.token_embedding.embeddings.numpy(), ours.word_embeddings.numpy())
    classifier = keras_hub.models.BertTextClassifier.from_preset(preset, num_classes=2)
    assert classifier.predict(np.array(sentences()[:4]), verbose=0).shape == (4, 2)

    # keras-hub computes tanh GELU: ours gets the same outputs with `gelu_new`.
    inputs = _inputs(tiny["vocab_file"])
    tanh = BertEncoder(CONFIG.replace(hidden_act="gelu_new"))
    load_into(tanh, preset, strict=True)
    _assert_same_outputs(backbone(_keras_hub_inputs(inputs)), tanh(inputs), inputs, atol=1e-5)

    # A preset keras-hub saved itself (keras' own h5 writer): read back exactly, as gelu_new.
    saved = str(tiny["tmp"] / "saved_by_keras_hub")
    backbone.save_to_preset(saved)
    keras_hub.models.BertTokenizer.from_preset(preset).save_to_preset(saved)
    config = resolve_encoder_config(init_checkpoint=saved)
    assert config == CONFIG.replace(hidden_act="gelu_new", attention_probs_dropout_prob=0.1,
                                    hidden_dropout_prob=0.1, initializer_range=0.02)
    reread = BertEncoder(config)
    assert not load_into(reread, saved, strict=True).unused
    expected = {w.path: w.numpy() for w in tanh.weights}
    for variable in reread.weights:
        np.testing.assert_array_equal(variable.numpy(), expected[variable.path], err_msg=variable.path)

def _assert_same_outputs(theirs, ours, inputs, atol):
    mask = inputs["input_mask"].astype(bool)
    sequence = np.abs(np.asarray(theirs["sequence_output"]) - np.asarray(ours["sequence_output"]))
    assert sequence[mask].max() <= atol, sequence[mask].max()
    pooled = np.abs(np.asarray(theirs["pooled_output"]) - np.asarray(ours["pooled_output"]))
    assert pooled.max() <= atol, pooled.max()


def test_minilm_through_the_converter_cli_matches_keras_hub(tmp_path):
    """Real weights: keras-hub's backbone from our preset and ours agree on real
    sentences. keras-hub computes tanh GELU, so ours does too here (`gelu_new`);
    MiniLM itself was trained with the exact form (README: the difference)."""
    keras_hub = _needs_keras_hub()
    preset = str(tmp_path / "minilm")
    warm_python.run([sys.executable, os.path.join(ROOT, "convert_checkpoint.py"),
                     f"--init_checkpoint={minilm_dir()}", "--output_format=keras_hub",
                     f"--output_dir={preset}", "--do_lower_case"],
                    check=True, cwd=ROOT, capture_output=True,
                    env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
    vocab_file = os.path.join(minilm_dir(), "vocab.txt")
    tokenizer = FullTokenizer(vocab_file, do_lower_case=True)
    their_tokenizer = keras_hub.models.BertTokenizer.from_preset(preset)
    for text in sentences():
        assert np.asarray(their_tokenizer(text)).tolist() == tokenizer.encode(text), text

    inputs = _inputs(vocab_file)
    backbone = keras_hub.models.BertBackbone.from_preset(preset)
    config = resolve_encoder_config(init_checkpoint=preset)
    assert config.hidden_act == "gelu"  # what MiniLM was trained with, kept in metadata.json
    ours = BertEncoder(config.replace(hidden_act="gelu_new"))
    assert not load_into(ours, preset, strict=True).missing
    _assert_same_outputs(backbone(_keras_hub_inputs(inputs)), ours(inputs), inputs, atol=1e-4)


def test_bfloat16_preset_saved_by_keras_hub_loads_exactly(tmp_path):
    """keras stores bfloat16 weights as raw 16-bit words tagged dtype=bfloat16."""
    keras_hub = _needs_keras_hub()
    backbone = keras_hub.models.BertBackbone(
        vocabulary_size=30, num_layers=1, num_heads=2, hidden_dim=8, intermediate_dim=16,
        max_sequence_length=12, dtype="bfloat16")
    backbone.save_to_preset(str(tmp_path))
    ours = BertEncoder(resolve_encoder_config(init_checkpoint=str(tmp_path)))
    load_into(ours, str(tmp_path), strict=True)
    np.testing.assert_array_equal(ours.word_embeddings.numpy(),
                                  np.asarray(backbone.token_embedding.embeddings.numpy(), np.float32))
    assert len(np.unique(ours.word_embeddings.numpy())) > 1
