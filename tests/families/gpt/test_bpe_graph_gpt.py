"""GPT's in-graph BPE gives exactly the Python BPE's pieces for any word: runs
of one symbol (overlapping pairs), words of one character, characters the
vocabulary never saw, many words at once."""

import os
import random

import tensorflow as tf

from families.gpt.bpe import BytePairEncoding
from families.gpt.graph_bpe import GraphBpe
from tests.conftest import FIXTURES

GPT_FIXTURES = os.path.join(FIXTURES, "gpt")


def test_graph_pieces_equal_python_pieces():
    bpe = BytePairEncoding.from_files(os.path.join(GPT_FIXTURES, "encoder_bpe_2000.json"),
                                      os.path.join(GPT_FIXTURES, "vocab_2000.bpe"))
    rng = random.Random(0)
    words = ["", "a", "\n", "aaaaaaa", "eeeeeeeeeee", "ssss", "the", "thethe", "東京", "naïve", "x" * 300]
    words += ["".join(rng.choice("aeinorst.'0") for _ in range(rng.randint(1, 14))) for _ in range(300)]
    graph = GraphBpe(bpe)
    pieces = graph.pieces(tf.constant(words)).to_list()
    assert [[p.decode("utf-8") for p in row] for row in pieces] == [bpe.pieces(w) for w in words]
    assert graph.ids(tf.constant(words)).to_list() == [bpe.ids(bpe.pieces(w)) for w in words]
