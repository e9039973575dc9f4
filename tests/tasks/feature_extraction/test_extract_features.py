"""extract_features.py: the original's input lines, tokens and JSON layout, plus
each word piece's character span in the input text."""

import json
import os
import shutil
import sys

import keras
import numpy as np
import pytest

from checkpoints.ours import save_weights
from data.text.segments import truncate_pair
from families.bert.encoder import BertEncoder
from families.bert.text_side import WordPieceText
from tasks.feature_extraction.extraction import (InputLine, encode_lines, feature_records,
                                                 layers_model, read_input_lines)
from tests import warm_python
from tests.conftest import ROOT
from tests.references import original_full_tokenizer
from tests.tiny_config import TINY_CONFIG

CONFIG = TINY_CONFIG.replace(num_hidden_layers=3)  # layers -1, 0 and -3 are three different layers
TEXTS = [("Who was Jim Henson ?", "Jim Henson was a puppeteer"),
         ("Unaffable  naïve\x07 café, İstanbul 東京 ﬁne", None),
         ("", None),
         ("a very long first text that will not fit in the window at all " * 3, "short one")]


@pytest.fixture(scope="module")
def encoded(uncased_vocab_file):
    lines = [InputLine(i, a, b) for i, (a, b) in enumerate(TEXTS)]
    return encode_lines(lines, WordPieceText.from_file(uncased_vocab_file, do_lower_case=True), 24)


def test_input_lines_as_the_original(tmp_path):
    path = tmp_path / "input.txt"
    path.write_bytes(b"Who ? ||| Jim .\nno pair|||here\n\n  spaced ||| b  \nbad \xff byte\n")
    assert read_input_lines(str(path)) == [
        InputLine(0, "Who ?", "Jim ."), InputLine(1, "no pair|||here"), InputLine(2, ""),
        InputLine(3, "spaced", "b"), InputLine(4, "bad  byte")]


def test_tokens_match_the_original_tokenizer_and_truncation(encoded, uncased_vocab_file):
    original = original_full_tokenizer(uncased_vocab_file, do_lower_case=True)
    for line, (text_a, text_b) in zip(encoded, TEXTS):
        tokens_a = original.tokenize(text_a)
        tokens_b = original.tokenize(text_b) if text_b is not None else None
        if tokens_b is None:
            expected = ["[CLS]"] + tokens_a[:22] + ["[SEP]"]
        else:
            tokens_a, tokens_b = truncate_pair(tokens_a, tokens_b, 21)
            expected = ["[CLS]"] + tokens_a + ["[SEP]"] + tokens_b + ["[SEP]"]
        assert line.tokens == expected
        assert line.inputs["input_mask"].sum() == len(expected)
        assert line.segments == [0] * (len(tokens_a) + 2) + (
            [1] * (len(tokens_b) + 1) if tokens_b is not None else [])


def test_char_spans_point_at_each_piece_in_its_text(encoded):
    first = encoded[0]
    texts = TEXTS[0]
    pieces = [(t, texts[s][span[0]:span[1]]) for t, s, span in
              zip(first.tokens, first.segments, first.char_spans) if span]
    assert pieces == [("who", "Who"), ("was", "was"), ("jim", "Jim"), ("henson", "Henson"),
                      ("?", "?"), ("jim", "Jim"), ("henson", "Henson"), ("was", "was"),
                      ("a", "a"), ("puppet", "puppet"), ("##eer", "eer")]
    hostile = encoded[1]
    text = TEXTS[1][0]
    spans = {t: text[b:e] for t, (b, e) in zip(hostile.tokens[1:-1], hostile.char_spans[1:-1])}
    assert spans["naive"] == "naïve" and spans["cafe"] == "café" and spans["東"] == "東"
    assert spans["istanbul"] == "İstanbul"
    assert hostile.char_spans[0] is None and hostile.char_spans[-1] is None


def test_records_have_the_original_layout_and_values(encoded):
    keras.utils.set_random_seed(0)
    encoder = BertEncoder(CONFIG)
    layers = [-1, 0, -3]
    records = list(feature_records(layers_model(encoder, layers), layers, encoded, batch_size=3))
    assert [r["linex_index"] for r in records] == [0, 1, 2, 3]
    line = encoded[0]
    outputs = encoder({k: v[None] for k, v in line.inputs.items()})["encoder_outputs"]
    for i, feature in enumerate(records[0]["features"]):
        assert list(feature) == ["token", "layers", "segment", "char_span"]
        assert feature["token"] == line.tokens[i]
        assert [layer["index"] for layer in feature["layers"]] == layers
        for layer in feature["layers"]:
            expected = np.round(np.asarray(outputs[layer["index"]])[0, i], 6)
            np.testing.assert_allclose(layer["values"], expected, atol=2e-6)
    with pytest.raises(ValueError, match="layer -4 does not exist: the encoder has 3 layers"):
        layers_model(encoder, [-4])


def test_command_line(tmp_path, uncased_vocab_file):
    model_dir = tmp_path / "model"
    save_weights(BertEncoder(CONFIG), str(model_dir))
    shutil.copy(uncased_vocab_file, model_dir / "vocab.txt")
    (tmp_path / "in.txt").write_text("Hello world ||| Second text\nJust one\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    warm_python.run([sys.executable, os.path.join(ROOT, "extract_features.py"),
                     f"--input_file={tmp_path / 'in.txt'}", f"--output_file={out}",
                     f"--init_checkpoint={model_dir}", "--layers=-1,-2", "--max_seq_length=16",
                     "--batch_size=1"], check=True, cwd=ROOT, capture_output=True)
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["linex_index"] for r in records] == [0, 1]
    assert [f["token"] for f in records[1]["features"]] == ["[CLS]", "just", "one", "[SEP]"]
    assert all(len(layer["values"]) == 32 for f in records[0]["features"] for layer in f["layers"])
