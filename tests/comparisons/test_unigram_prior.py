"""The unigram prior against hand counts: add-one smoothing over the whole
vocabulary, nats per held-out token."""

import math

import pytest

from comparisons.unigram_prior import text_ids, unigram_cross_entropy


def test_cross_entropy_of_held_out_tokens_under_add_one_counts():
    # corpus counts of ids 0..3: 3, 1, 0, 0 -> smoothed 4, 2, 1, 1 of 8
    found = unigram_cross_entropy([0, 0, 0, 1], [0, 2], vocab_size=4)
    assert found == pytest.approx(-(math.log(4 / 8) + math.log(1 / 8)) / 2, rel=1e-12)


def test_a_uniform_corpus_gives_the_log_of_the_vocabulary():
    assert unigram_cross_entropy(list(range(5)) * 3, [1, 4], vocab_size=5) == pytest.approx(math.log(5), rel=1e-12)


def words(lines):
    return [line.split() for line in lines]


def test_text_ids_reads_nonblank_lines_up_to_the_limit(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("a b\n\nc\nd e f\n", encoding="utf-8")
    assert text_ids(str(path), words) == ["a", "b", "c", "d", "e", "f"]
    assert text_ids(str(path), words, max_lines=3) == ["a", "b", "c"]
    assert text_ids(str(path), words, batch=2) == ["a", "b", "c", "d", "e", "f"]  # lines in calls of 2
