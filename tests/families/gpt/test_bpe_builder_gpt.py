"""The GPT BPE builder: files in the release's layout that the tokenizer
reads back, merges most frequent first, atomic writes, and errors that name
the file and line."""

import collections
import json
import os
import sys

import pytest

from data.pretraining.corpus_reader import CorpusError
from families.gpt.bpe_builder import build_bpe_vocabulary, learn_merges
from families.gpt.tokenizer import GPTTokenizer
from tests import warm_python
from tests.conftest import ROOT

CORPUS = ["The lower house met.", "The lowest houses!", "Newer houses, newest lows."] * 3


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(CORPUS) + "\n", encoding="utf-8")
    return str(path)


def test_round_trip(tmp_path, corpus):
    encoder_file, merges_file = build_bpe_vocabulary(corpus, str(tmp_path / "vocab"), 20)
    assert os.path.basename(encoder_file) == "encoder_bpe_20.json"
    assert os.path.basename(merges_file) == "vocab_20.bpe"
    assert sorted(os.listdir(tmp_path / "vocab")) == ["encoder_bpe_20.json", "vocab_20.bpe"]
    with open(encoder_file, encoding="utf-8") as f:
        encoder = json.load(f)
    pieces = sorted(encoder, key=encoder.get)
    alphabet = (len(encoder) - 20 - 2) // 2
    assert pieces[0] == "<unk>" and pieces[-1] == "\n</w>"
    assert pieces[1 + alphabet:1 + 2 * alphabet] == [c + "</w>" for c in pieces[1:1 + alphabet]]
    tokenizer = GPTTokenizer.from_file(encoder_file)
    merges = tokenizer.bpe.merges
    assert [encoder[a + b] for a, b in merges] == list(range(1 + 2 * alphabet, 1 + 2 * alphabet + 20))
    pairs = collections.Counter(
        pair for line in CORPUS for w, _ in tokenizer.tokenize_words(line)
        for pair in zip(list(w[:-1]), list(w[1:-1]) + [w[-1] + "</w>"]))
    assert merges[0] == min(pairs, key=lambda pair: (-pairs[pair], pair))  # most frequent first
    text = "The newest houses met lower lows."
    ids = tokenizer.encode(text)
    assert 0 not in ids  # every character was seen
    words = "".join(tokenizer.bpe.to_tokens(ids)).replace("</w>", " ").split()
    assert words == [w for w, _ in tokenizer.tokenize_words(text)]

def test_a_vocabulary_size_gives_the_merges_that_fill_it(tmp_path, corpus):
    encoder_file, _ = build_bpe_vocabulary(corpus, str(tmp_path / "vocab"), vocab_size=50)
    tokenizer = GPTTokenizer.from_file(encoder_file)
    assert tokenizer.bpe.n_vocab + 3 == 50  # the pieces and the three special tokens
    assert os.path.basename(encoder_file) == f"encoder_bpe_{len(tokenizer.bpe.merges)}.json"
    with pytest.raises(CorpusError, match="a vocabulary of 10 ids is smaller than the corpus's"):
        build_bpe_vocabulary(corpus, str(tmp_path / "small"), vocab_size=10)


def test_ties_go_to_the_smaller_pair():
    assert learn_merges({"ab": 2, "cd": 2}, 2) == [("a", "b</w>"), ("c", "d</w>")]
    assert learn_merges({"aaaa": 1}, 2, min_frequency=1) == [("a", "a"), ("a", "a</w>")]


def test_too_few_pairs_is_an_error(tmp_path, corpus):
    with pytest.raises(CorpusError, match="only .* merges of pairs seen at least 2 times; 5000"):
        build_bpe_vocabulary(corpus, str(tmp_path), 5000)
    assert os.listdir(tmp_path) == ["corpus.txt"]  # nothing half written


def test_invalid_utf8_names_file_and_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"good line\nbad \xff line\n")
    with pytest.raises(CorpusError, match=f"{path}:2: invalid UTF-8"):
        build_bpe_vocabulary(str(path), str(tmp_path), 1)


def test_command_line_reports_unreadable_input(tmp_path):
    missing = warm_python.run([sys.executable, "build_bpe_vocab.py", f"--input_file={tmp_path}/none.txt"],
                              cwd=ROOT, capture_output=True, text=True)
    assert missing.returncode == 1
    assert "build_bpe_vocab.py: input file not found" in missing.stderr
