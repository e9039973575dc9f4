"""The instance algorithm (pairs, random next, truncation) and the NumPy
masking of the offline writer, on small hand-made token-id documents."""

import os
import random

import numpy as np
import pytest

from tests.conftest import FIXTURES

from families.bert.pretraining.config import MaskingOptions
from families.bert.pretraining.instances import InstanceBuilder, _removed_from_a, truncate_pair
from families.bert.pretraining.masking import Masker, num_to_predict, select_ngrams, word_spans

CLS, SEP, MASK = 1, 2, 3


def documents(count=20, sentences=6, seed=0):
    """Documents whose token ids encode (document, sentence, position)."""
    rng = random.Random(seed)
    return [
        [[10_000 * d + 100 * s + t for t in range(rng.randint(3, 12))] for s in range(sentences)]
        for d in range(count)
    ]


def test_removal_order_matches_the_one_token_at_a_time_loop():
    def loop(length_a, length_b, max_tokens):
        """Bit j set: the loop's j-th removal takes from A."""
        from_a, removal = 0, 0
        while length_a + length_b > max_tokens:
            if length_a > length_b:
                length_a, from_a = length_a - 1, from_a | 1 << removal
            else:
                length_b -= 1
            removal += 1
        return from_a

    for a in range(25):
        for b in range(25):
            for max_tokens in range(1, a + b):
                assert _removed_from_a(a, b, a + b - max_tokens) == loop(a, b, max_tokens)


def test_truncation_takes_from_front_and_back_evenly():
    rng = random.Random(0)
    fronts = [truncate_pair(list(range(100)), [], 60, rng)[0][0] for _ in range(2000)]
    assert np.mean(fronts) == pytest.approx(20, abs=0.5)  # 40 removed, half from the front


def test_pairs_are_contiguous_or_random_and_fill_the_sequence():
    docs = documents()
    builder = InstanceBuilder(40, 0.0, True, CLS, SEP)
    instances = builder.build(docs, 4, random.Random(1))
    # Half of the pairs by the coin, more because one gathered sentence forces a random B.
    assert 0.45 < np.mean([i.is_random_next for i in instances]) < 0.7
    for instance in instances:
        ids = instance.token_ids
        assert len(ids) <= 40 and ids[0] == CLS and ids[-1] == SEP
        a = ids[1 : instance.first_segment_length - 1]
        b = ids[instance.first_segment_length : -1]
        assert a and b and ids[instance.first_segment_length - 1] == SEP
        document_a, document_b = a[-1] // 10_000, b[0] // 10_000
        if instance.is_random_next:
            assert document_b != document_a
        else:
            assert document_b == document_a and b[0] // 100 > a[-1] // 100
    lengths = [len(i.token_ids) for i in instances]
    assert np.mean(lengths) > 30


def test_random_next_share_matches_the_original_on_the_same_documents(uncased_vocab_file):
    """The share depends on the corpus (one gathered sentence forces a random
    B), so both algorithms run on the fixture's documents, 400 passes each."""
    from tests.references import original_full_tokenizer
    from bert import create_pretraining_data as original

    tokenizer = original_full_tokenizer(uncased_vocab_file, True)
    text = open(os.path.join(FIXTURES, "pretraining_corpus.txt"), encoding="utf-8").read()
    docs = [[tokenizer.tokenize(line) for line in block.splitlines()] for block in text.split("\n\n")]
    rng = random.Random(0)
    theirs = [
        instance.is_random_next
        for _ in range(400)
        for index in range(len(docs))
        for instance in original.create_instances_from_document(
            docs, index, 128, 0.1, 0.15, 20, list(tokenizer.vocab), rng
        )
    ]
    ours = InstanceBuilder(128, 0.1, True, "[CLS]", "[SEP]").build(docs, 400, random.Random(0))
    assert np.mean([i.is_random_next for i in ours]) == pytest.approx(np.mean(theirs), abs=0.02)


def test_single_segment_instances_have_no_second_segment():
    instances = InstanceBuilder(32, 0.0, False, CLS, SEP).build(documents(), 1, random.Random(2))
    for instance in instances:
        assert instance.token_ids.count(SEP) == 1 and instance.first_segment_length == len(instance.token_ids)
        assert not instance.is_random_next


def test_short_seq_prob_counts_short_targets():
    builder = InstanceBuilder(64, 0.5, True, CLS, SEP)
    builder.build(documents(count=200), 1, random.Random(3))
    assert builder.short_targets == pytest.approx(100, abs=25)


def test_num_to_predict_rounds_like_python():
    lengths = np.array([1, 3, 10, 30, 50, 128, 512])
    expected = [min(20, max(1, int(round(n * 0.15)))) for n in lengths]
    assert num_to_predict(lengths, 0.15, 20).tolist() == expected


def masker(**options):
    continuation = np.zeros(200, dtype=bool)
    continuation[100:] = True  # ids >= 100 are '##' pieces
    return Masker(MaskingOptions(**options), 200, CLS, SEP, MASK, continuation)


def batch(rows=2000, seq=32, seed=0):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(6, seq + 1, rows)
    ids = rng.integers(10, 200, (rows, seq))
    ids[:, 0] = CLS
    ids[np.arange(rows), lengths - 1] = SEP
    ids[np.arange(seq) >= lengths[:, None]] = 0
    return ids, lengths


def test_token_masking_targets_candidates_at_the_80_10_10_rates():
    ids, lengths = batch()
    targets = masker(max_predictions_per_seq=5)(ids, lengths, np.random.default_rng(1))
    chosen = targets.weights > 0
    assert (chosen.sum(1) == num_to_predict(lengths, 0.15, 5)).all()
    rows = np.arange(len(ids))[:, None]
    assert not np.isin(ids[rows, targets.positions][chosen], [0, CLS, SEP]).any()
    np.testing.assert_array_equal(targets.label_ids[chosen], ids[rows, targets.positions][chosen])
    shown = targets.input_ids[rows, targets.positions][chosen]
    assert (shown == MASK).mean() == pytest.approx(0.8, abs=0.02)
    assert (shown == targets.label_ids[chosen]).mean() == pytest.approx(0.1 + 0.1 / 200, abs=0.02)
    untouched = np.ones_like(ids, dtype=bool)
    untouched[rows, targets.positions] &= ~chosen
    np.testing.assert_array_equal(targets.input_ids[untouched], ids[untouched])


def test_whole_words_do_not_cross_separators():
    ids = np.array([[CLS, 10, 150, 151, SEP, 160, 11, 170, SEP, 0]])
    candidates = (ids != CLS) & (ids != SEP) & (ids != 0)
    starts, ends = word_spans(ids, candidates, np.arange(200) >= 100)[0]
    assert list(zip(starts, ends)) == [(1, 4), (5, 6), (6, 8)]


def test_ngrams_respect_the_budget_and_cover_whole_words():
    starts, ends = np.array([1, 3, 4, 7]), np.array([3, 4, 7, 8])
    rng = np.random.default_rng(0)
    for budget in range(1, 8):
        chosen = select_ngrams(starts, ends, 3, budget, rng)
        assert len(chosen) <= budget
        for begin, end in zip(starts, ends):
            assert len(set(range(begin, end)) & set(chosen)) in (0, end - begin)
