"""GPT's Python tokenizer gives exactly the ids the ORIGINAL `TextEncoder`
(openai/finetune-transformer-lm) recorded on 369 real and hostile texts
(tests/fixtures/gpt/README.md), over a small vocabulary built here and over
the released one; and its BPE files are read as the original reads them."""

import gzip
import json
import os

import pytest

from families.gpt.bpe import BpeFileError, BytePairEncoding, read_encoder, read_merges
from families.gpt.tokenizer import GPTTokenizer, merges_file_beside
from tests.conftest import FIXTURES, shared_path

GPT_FIXTURES = os.path.join(FIXTURES, "gpt")
SMALL_ENCODER = os.path.join(GPT_FIXTURES, "encoder_bpe_2000.json")


def recorded():
    with gzip.open(os.path.join(GPT_FIXTURES, "original_ids.json.gz"), "rt", encoding="ascii") as f:
        return json.load(f)


def _mismatches(tokenizer, key):
    return [r["text"][:80] for r in recorded() if tokenizer.encode(r["text"]) != r[key]]


def test_small_vocabulary_ids_equal_the_original():
    assert len(recorded()) == 369
    assert _mismatches(GPTTokenizer.from_file(SMALL_ENCODER), "ids") == []


def test_released_vocabulary_ids_equal_the_original():
    tokenizer = GPTTokenizer.from_file(shared_path("gpt", "encoder_bpe_40000.json"))
    assert tokenizer.bpe.n_vocab == 40478 and len(tokenizer.bpe.merges) == 40000
    assert _mismatches(tokenizer, "ids_release") == []


def test_words_and_pieces():
    tokenizer = GPTTokenizer.from_file(SMALL_ENCODER)
    words = [w for w, _ in tokenizer.tokenize_words("Don't stop—it's 3 a.m.\nOK…")]
    assert words == ["do", "n't", "stop", "-", "it", "'s", "3", "a.m.", "\n ", "ok", "..."]
    assert tokenizer.bpe.pieces("\n ") == ["\n</w>"]  # the original's special case
    assert tokenizer.bpe.pieces("") == []
    n = tokenizer.bpe.n_vocab
    assert tokenizer.bpe.to_tokens([0, n, n + 1, n + 2]) == ["<unk>", "_start_", "_delimiter_", "_classify_"]


def test_merges_file_is_found_beside_the_encoder():
    assert merges_file_beside("/m/encoder_bpe_40000.json") == "/m/vocab_40000.bpe"
    assert merges_file_beside("/m/encoder.json") == "/m/vocab.bpe"


@pytest.mark.parametrize("content, message", [
    ("[1, 2]", "expected a JSON object"),
    ('{"a": 0, "b": 2}', r"ids must be 0\.\.1"),
    ('{"a": 0', "cannot read the BPE encoder"),
])
def test_bad_encoder_files_are_named(tmp_path, content, message):
    path = tmp_path / "encoder_bpe_1.json"
    path.write_text(content)
    with pytest.raises(BpeFileError, match=f"{path}: .*{message}"):
        read_encoder(str(path))


@pytest.mark.parametrize("content, message", [
    ("t h\n", ":1: expected a '#version' line"),
    ("#version: 0.2\nt h\nth e r\n", ":3: expected two symbols"),
    ("#version: 0.2\nt h\n\nx y\n", ":3: expected two symbols"),
])
def test_bad_merges_files_are_named_with_the_line(tmp_path, content, message):
    path = tmp_path / "vocab_1.bpe"
    path.write_text(content)
    with pytest.raises(BpeFileError, match=f"{path}{message}"):
        read_merges(str(path))


def test_merges_file_without_final_newline_keeps_its_last_merge(tmp_path):
    path = tmp_path / "vocab_2.bpe"
    path.write_text("#version: 0.2\nt h\nth e</w>")
    assert read_merges(str(path)) == [("t", "h"), ("th", "e</w>")]
    bpe = BytePairEncoding({"<unk>": 0}, read_merges(str(path)))
    assert bpe.pieces("the") == ["the</w>"] and bpe.ids(["the</w>"]) == [0]
