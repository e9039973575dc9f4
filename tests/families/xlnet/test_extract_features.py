"""extract_features.py on an XLNet: SentencePiece pieces in `A <sep> B <sep> <cls>`,
no features for the left padding, values of the Keras encoder's
`encoder_outputs` at each token's position."""

import json
import os
import sys

import numpy as np
import pytest

from checkpoints.loader import load_into
from contracts import registry
from families.xlnet.encoder import XLNetEncoder
from tasks.feature_extraction.extraction import (InputLine, encode_lines, feature_records,
                                                 layers_model)
from tests import warm_python
from tests.conftest import ROOT
from tests.families.xlnet.spiece_model import LINES
from tests.runners.xlnet_release import CONFIG, write_xlnet_release

SEQ_LENGTH = 48
LAYERS = [-1, 0]
TEXTS = [("On May 3, 1921", "the red house counted 37 rooms."), ("the old house.", None),
         ("", None), (LINES[3], "ROOMS 1,000"), ("2 doors", "")]
# Values are rounded to 6 decimals (half a unit: 5e-7); the Keras model recomputes
# them with the same float32 ops, whose summation order may differ within
# n_layer blocks of at most d_inner products each (outputs are about unit size).
TOLERANCE = 5e-7 + CONFIG.n_layer * CONFIG.d_inner * float(np.finfo(np.float32).eps)


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    return write_xlnet_release(tmp_path_factory.mktemp("xlnet_release"))


@pytest.fixture(scope="module")
def text(release):
    return registry.text_side_for("xlnet", os.path.join(os.path.dirname(release), "spiece.model"), False)


@pytest.fixture(scope="module")
def encoder(release):
    encoder = XLNetEncoder(CONFIG)
    load_into(encoder, release)
    return encoder


def _pack(text, text_a, text_b, seq_length):
    return text.pack(text.encode(text_a), None if text_b is None else text.encode(text_b),
                     seq_length).values()


def _expected_row(text, text_a, text_b, seq_length):
    """(pieces, input_type_ids, positions) of the real tokens `pack` gives."""
    word_ids, mask, type_ids = _pack(text, text_a, text_b, seq_length)
    positions = np.flatnonzero(mask)
    return (text.to_tokens(word_ids[positions].tolist()), type_ids[positions].tolist(),
            positions.tolist())


def test_lines_pack_as_the_text_side_with_pieces_and_left_padding(text):
    encoded = encode_lines([InputLine(i, a, b) for i, (a, b) in enumerate(TEXTS)], text, SEQ_LENGTH)
    for line, (text_a, text_b) in zip(encoded, TEXTS):
        word_ids, mask, type_ids = _pack(text, text_a, text_b, SEQ_LENGTH)
        np.testing.assert_array_equal(line.inputs["input_word_ids"], word_ids)
        np.testing.assert_array_equal(line.inputs["input_mask"], mask)
        np.testing.assert_array_equal(line.inputs["input_type_ids"], type_ids)
        assert (line.tokens, line.segments, line.positions) == _expected_row(
            text, text_a, text_b, SEQ_LENGTH)
        assert line.char_spans == [None] * len(line.tokens)  # SentencePiece gives no offsets
    first = encoded[0]
    assert first.tokens[-1] == "<cls>" and first.segments[-1] == 2
    pieces = text.tokenizer.encode_pieces(text.tokenizer.preprocess(TEXTS[0][0]))
    assert first.tokens[:len(pieces) + 1] == pieces + ["<sep>"]
    single = encoded[1]
    pieces = text.tokenizer.encode_pieces(text.tokenizer.preprocess(TEXTS[1][0]))
    assert single.tokens == pieces + ["<sep>", "<cls>"]
    assert single.positions == list(range(SEQ_LENGTH - len(pieces) - 2, SEQ_LENGTH))  # left padding
    empty = encoded[2]
    assert empty.tokens == ["<sep>", "<cls>"]
    assert empty.positions == [SEQ_LENGTH - 2, SEQ_LENGTH - 1]
    assert len(encoded[3].tokens) == SEQ_LENGTH  # a long pair, cut longest first


def test_records_are_the_encoder_outputs_at_the_real_tokens(text, encoder):
    encoded = encode_lines([InputLine(i, a, b) for i, (a, b) in enumerate(TEXTS)], text, SEQ_LENGTH)
    records = list(feature_records(layers_model(encoder, LAYERS), LAYERS, encoded, batch_size=2))
    inputs = {k: np.stack([line.inputs[k] for line in encoded]) for k in encoded[0].inputs}
    outputs = np.stack(encoder(inputs, training=False)["encoder_outputs"])
    for row, (record, line) in enumerate(zip(records, encoded)):
        assert [f["token"] for f in record["features"]] == line.tokens
        for feature, position in zip(record["features"], line.positions):
            for layer in feature["layers"]:
                np.testing.assert_allclose(layer["values"], outputs[layer["index"], row, position],
                                           rtol=0, atol=TOLERANCE)


def test_command_line_reads_the_release_directory(release, text, encoder, tmp_path):
    (tmp_path / "in.txt").write_text(f"{LINES[5]} ||| {LINES[6]}\nROOMS\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}
    done = warm_python.run([sys.executable, os.path.join(ROOT, "extract_features.py"),
                            f"--input_file={tmp_path / 'in.txt'}", f"--output_file={out}",
                            f"--init_checkpoint={release}", "--layers=-1,0", "--max_seq_length=32",
                            "--batch_size=1"], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["linex_index"] for r in records] == [0, 1]
    for record, (text_a, text_b) in zip(records, [(LINES[5], LINES[6]), ("ROOMS", None)]):
        tokens, segments, positions = _expected_row(text, text_a, text_b, 32)
        assert [f["token"] for f in record["features"]] == tokens
        assert [f["segment"] for f in record["features"]] == segments
        inputs = {k: v[None] for k, v in zip(("input_word_ids", "input_mask", "input_type_ids"),
                                             _pack(text, text_a, text_b, 32))}
        outputs = encoder(inputs, training=False)["encoder_outputs"]
        for feature, position in zip(record["features"], positions):
            for layer in feature["layers"]:
                np.testing.assert_allclose(layer["values"],
                                           np.asarray(outputs[layer["index"]])[0, position],
                                           rtol=0, atol=TOLERANCE)
    lowered, _, _ = _expected_row(registry.text_side_for("xlnet", text.model_file, True), "ROOMS", None, 32)
    assert [f["token"] for f in records[1]["features"]] != lowered  # cased: XLNet's default
