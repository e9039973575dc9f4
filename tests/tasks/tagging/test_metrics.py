"""Entity-level scores equal conlleval's.

`conll_eval_*.conlleval.txt` hold conlleval's own output (conlleval.pl,
version 2004-01-26, run on the `conll_eval_*.txt` beside them): tag
sequences that start with I-, IOB1 gold against IOB2 predictions, type
changes inside chunks, empty sentences (blank lines in a row), and random tags.
"""

import os

import pytest
from seqeval.metrics import f1_score
from seqeval.scheme import IOB2

from tasks.tagging.conll_reader import to_iob2
from tasks.tagging.metrics import conlleval_report, entity_scores
from tests.conftest import FIXTURES


def _read_conlleval_input(path):
    """Sentences of (gold, predicted) tags; every blank line ends one, so
    blank lines in a row give empty sentences, as conlleval sees them."""
    gold, predicted = [[]], [[]]
    with open(path, encoding="utf-8") as f:
        for line in f.read().split("\n"):
            if not line.strip():
                gold.append([])
                predicted.append([])
                continue
            columns = line.split(" ")
            gold[-1].append(columns[-2])
            predicted[-1].append(columns[-1])
    return gold, predicted


@pytest.mark.parametrize("name", ["conll_eval_tricky", "conll_eval_random"])
def test_report_equals_conlleval_output(name):
    gold, predicted = _read_conlleval_input(os.path.join(FIXTURES, name + ".txt"))
    assert any(not sentence for sentence in gold)  # empty sentences are part of the case
    with open(os.path.join(FIXTURES, name + ".conlleval.txt"), encoding="utf-8") as f:
        expected = f.read()
    assert conlleval_report(entity_scores(gold, predicted)) == expected


def test_counts_on_tricky_fixture():
    gold, predicted = _read_conlleval_input(os.path.join(FIXTURES, "conll_eval_tricky.txt"))
    scores = entity_scores(gold, predicted)
    assert (scores.gold, scores.found, scores.correct) == (12, 18, 5)
    assert scores.per_type["ORG"].correct == 3
    assert scores.f1 == pytest.approx(2 * (5 / 18) * (5 / 12) / (5 / 18 + 5 / 12))
    metrics = scores.as_dict()
    assert metrics["ORG_f1"] == pytest.approx(0.75) and metrics["MISC_f1"] == 0.0


def test_iob1_and_iob2_score_the_same():
    gold, predicted = _read_conlleval_input(os.path.join(FIXTURES, "conll_eval_tricky.txt"))
    as_iob2 = [to_iob2(s) for s in gold]
    a, b = entity_scores(gold, predicted), entity_scores(as_iob2, predicted)
    assert (a.gold, a.found, a.correct, a.per_type) == (b.gold, b.found, b.correct, b.per_type)


def test_strict_iob2_mode_agrees_only_after_conversion_to_iob2():
    """seqeval's strict IOB2 mode drops chunks opened by I-; on sequences
    converted to IOB2 it gives conlleval's F1."""
    gold, predicted = [["I-PER", "I-PER", "O"]], [["B-PER", "I-PER", "O"]]
    assert entity_scores(gold, predicted).f1 == 1.0
    assert f1_score(gold, predicted, mode="strict", scheme=IOB2) == 0.0
    converted = [to_iob2(s) for s in gold]
    assert f1_score(converted, predicted, mode="strict", scheme=IOB2) == 1.0


def test_no_chunks_and_misaligned_input():
    scores = entity_scores([[], ["O"]], [[], ["O"]])
    assert (scores.f1, scores.per_type, scores.tokens) == (0.0, {}, 1)
    assert conlleval_report(entity_scores([], [])) == (
        "processed 0 tokens with 0 phrases; found: 0 phrases; correct: 0.\n")
    with pytest.raises(ValueError, match="1 gold sentences but 2 predicted"):
        entity_scores([["O"]], [["O"], ["O"]])
    with pytest.raises(ValueError, match="sentence 0: 2 gold tags but 1 predicted"):
        entity_scores([["O", "O"]], [["O"]])
