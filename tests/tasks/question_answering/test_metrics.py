"""Our SQuAD EM/F1 against the official v1.1 and v2.0 scorers in tf-models-official."""

import random

import pytest

from tasks.question_answering import metrics as question_answering_metrics

official_v1 = pytest.importorskip("official.nlp.tools.squad_evaluate_v1_1")
official_v2 = pytest.importorskip("official.nlp.tools.squad_evaluate_v2_0")

WORDS = ["the", "The", "a", "An", "cat", "Cat", "sat", "on", "mat", "mat.", "1,000", "(1895)",
         "Denver", "Broncos", "café", "naïve", "—", "!", "'s", "an", "x", "y", "z", "two", "2"]
EDGE_PAIRS = [  # (prediction, gold)
    ("", ""), ("", "the"), ("the", ""), ("The", "a"), ("!!!", "."), ("", "Denver"),
    ("Denver Broncos", "the Denver Broncos."), ("DENVER   broncos", "denver broncos"),
    ("cat cat", "cat"), ("cat", "cat cat"), ("thecat", "the cat"), ("an apple", "apple"),
    ("café", "cafe"), ("1,000", "1000"), ("Smith's", "Smith"), ("tab\tand\nnewline", "tab and newline"),
]


def _text(rng, empty_rate=0.1):
    if rng.random() < empty_rate:
        return rng.choice(["", " ", "the", "."])
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))


def _dataset(rng, num_questions, unanswerable_rate=0.0):
    qas = []
    for i in range(num_questions):
        answers = [] if rng.random() < unanswerable_rate else [
            {"text": _text(rng), "answer_start": 0} for _ in range(rng.randint(1, 3))]
        qas.append({"id": f"q{i}", "question": "?", "answers": answers,
                    "is_impossible": not answers})
    for j, (_, gold) in enumerate(EDGE_PAIRS):
        qas.append({"id": f"edge{j}", "question": "?", "answers": [{"text": gold, "answer_start": 0}]})
    return [{"title": "t", "paragraphs": [{"context": "c", "qas": qas[k:k + 7]}
                                          for k in range(0, len(qas), 7)]}]


def _predictions(rng, articles, drop_rate=0.0):
    predictions = {}
    for article in articles:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                if rng.random() < drop_rate:
                    continue
                if qa["id"].startswith("edge"):
                    predictions[qa["id"]] = EDGE_PAIRS[int(qa["id"][4:])][0]
                elif qa["answers"] and rng.random() < 0.4:
                    predictions[qa["id"]] = rng.choice(qa["answers"])["text"]
                else:
                    predictions[qa["id"]] = _text(rng, empty_rate=0.3)
    return predictions


@pytest.mark.parametrize("seed", range(8))
def test_v1_matches_official(seed):
    rng = random.Random(seed)
    articles = _dataset(rng, 60)
    predictions = _predictions(rng, articles, drop_rate=0.1 if seed % 2 else 0.0)
    ours = question_answering_metrics.squad_v1_scores(articles, predictions)
    theirs = official_v1.evaluate(articles, predictions)
    assert ours["exact_match"] == pytest.approx(100 * theirs["exact_match"], abs=1e-9)
    assert ours["f1"] == pytest.approx(100 * theirs["final_f1"], abs=1e-9)


@pytest.mark.parametrize("seed", range(8))
def test_v2_matches_official(seed):
    rng = random.Random(seed)
    articles = _dataset(rng, 80, unanswerable_rate=0.4)
    predictions = _predictions(rng, articles, drop_rate=0.1 if seed % 2 else 0.0)
    # Coarse odds make ties, which the threshold search must break as the official one does.
    null_odds = {qid: round(rng.uniform(-6, 6), 0 if seed % 3 == 0 else 3) for qid in predictions}
    for odds in (None, null_odds):
        ours = question_answering_metrics.squad_v2_scores(articles, predictions, odds)
        theirs = official_v2.evaluate(articles, predictions, odds)
        for key in ("exact", "f1", "total", "HasAns_exact", "HasAns_f1", "HasAns_total",
                    "NoAns_exact", "NoAns_f1", "NoAns_total"):
            assert ours[key] == pytest.approx(theirs[key], abs=1e-9), key
        if odds is not None:
            for key in ("exact", "exact_thresh", "f1", "f1_thresh"):
                assert ours[f"best_{key}"] == pytest.approx(theirs[f"final_{key}"], abs=1e-9), key


@pytest.mark.parametrize("prediction,gold", EDGE_PAIRS)
def test_edge_pairs_match_official(prediction, gold):
    assert (question_answering_metrics.exact_match(prediction, gold)
            == official_v2._compute_exact(gold, prediction))
    assert question_answering_metrics.f1_v1(prediction, gold) == pytest.approx(
        official_v1._f1_score(prediction, gold), abs=1e-12)
    assert question_answering_metrics.f1_v2(prediction, gold) == pytest.approx(
        official_v2._compute_f1(gold, prediction), abs=1e-12)


def test_v1_leaves_out_questions_without_gold_answers():
    articles = [{"paragraphs": [{"context": "c", "qas": [
        {"id": "a", "answers": [{"text": "cat"}]}, {"id": "b", "answers": []}]}]}]
    scores = question_answering_metrics.squad_v1_scores(articles, {"a": "the cat", "b": "x"})
    assert scores == {"exact_match": 100.0, "f1": 100.0, "total": 1}


def test_best_threshold_all_null_start():
    # Every question answered "" already scores the unanswerable ones: the search starts there.
    articles = [{"paragraphs": [{"context": "c", "qas": [
        {"id": "a", "answers": []}, {"id": "b", "answers": [{"text": "cat"}]}]}]}]
    scores = question_answering_metrics.squad_v2_scores(articles, {"a": "dog", "b": "cat"},
                                           {"a": 2.0, "b": -1.0})
    assert scores["best_exact"] == 100.0 and scores["best_exact_thresh"] == -1.0
