"""SQuAD exact match and F1, computed as the official v1.1 and v2.0 scripts do.

Both scripts normalise an answer by lower-casing, deleting ASCII punctuation,
deleting the words "a", "an", "the" and collapsing whitespace; EM compares the
normalised strings and F1 the bags of their words, each maximised over the
gold answers. They differ in details that change scores, kept here:

- v1.1 scores every question of the file (a question without a prediction
  scores 0) and gives F1 0 when nothing overlaps, even for two empty answers.
  Gold answers must exist; a question without any (which the official script
  cannot score) is left out with a warning.
- v2.0 scores only the questions that have a prediction; a question whose gold
  answers normalise to nothing is unanswerable and only "" is right for it;
  F1 of an empty prediction or gold is 1 when both are empty, else 0. With
  null odds (`null_odds.json`), a question whose odds exceed `na_prob_thresh`
  counts as answered "", and the best threshold over the odds is searched as
  the official script does (`best_exact`, `best_f1` and their thresholds).

Scores are percentages, under the official scripts' key names.
`tests/tasks/question_answering/test_metrics.py` checks them against the scripts shipped in
tf-models-official (`official.nlp.tools.squad_evaluate_v1_1`, `..._v2_0`).
"""

import collections
import re
import string

from absl import logging

_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text):
    """Lower-case, drop punctuation, drop articles, collapse whitespace."""
    text = "".join(c for c in text.lower() if c not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction, gold):
    """1 when the normalised answers are equal, else 0."""
    return int(normalize_answer(prediction) == normalize_answer(gold))


def _overlap_f1(prediction_words, gold_words):
    common = sum((collections.Counter(prediction_words) & collections.Counter(gold_words)).values())
    if common == 0:
        return 0
    precision = common / len(prediction_words)
    recall = common / len(gold_words)
    return 2 * precision * recall / (precision + recall)


def f1_v1(prediction, gold):
    """Word-overlap F1 of v1.1: 0 without overlap (two empty answers included)."""
    return _overlap_f1(normalize_answer(prediction).split(), normalize_answer(gold).split())


def f1_v2(prediction, gold):
    """Word-overlap F1 of v2.0: an empty side scores 1 if both are empty, else 0."""
    prediction_words, gold_words = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not prediction_words or not gold_words:
        return int(prediction_words == gold_words)
    return _overlap_f1(prediction_words, gold_words)


def _questions(articles):
    for article in articles:
        for paragraph in article["paragraphs"]:
            yield from paragraph["qas"]


def squad_v1_scores(articles, predictions):
    """{"exact_match", "f1", "total"} of `predictions` {id: text} against the
    `data` list of a SQuAD v1.1 file."""
    exact = f1 = total = 0
    missing, unanswerable = [], []
    for qa in _questions(articles):
        golds = [answer["text"] for answer in qa.get("answers") or []]
        if not golds:
            unanswerable.append(qa["id"])
            continue
        total += 1
        if qa["id"] not in predictions:
            missing.append(qa["id"])
            continue
        prediction = predictions[qa["id"]]
        exact += max(exact_match(prediction, gold) for gold in golds)
        f1 += max(f1_v1(prediction, gold) for gold in golds)
    if unanswerable:
        logging.warning("%d question(s) without gold answers left out of v1.1 scoring, e.g. %s",
                        len(unanswerable), unanswerable[0])
    if missing:
        logging.warning("%d question(s) have no prediction and score 0, e.g. %s",
                        len(missing), missing[0])
    if not total:
        raise ValueError("no question with gold answers to score")
    return {"exact_match": 100.0 * exact / total, "f1": 100.0 * f1 / total, "total": total}


def _mean_percent(scores, ids):
    return 100.0 * sum(scores[i] for i in ids) / len(ids)


def best_null_threshold(predictions, scores, null_odds, has_answer):
    """(best score in percent, threshold) over thresholds on the null odds.

    Questions are taken in increasing odds; answering "" for every one above
    the threshold, an answerable question gains its score when answered and
    an unanswerable one loses a point when given a non-empty answer. This is
    the official v2.0 search, ties and starting point (all answered "", 0.0)
    included.
    """
    current = best = sum(1 for answerable in has_answer.values() if not answerable)
    threshold = 0.0
    for qid in sorted(null_odds, key=null_odds.get):
        if qid not in scores:
            continue
        if has_answer[qid]:
            current += scores[qid]
        elif predictions[qid]:
            current -= 1
        if current > best:
            best, threshold = current, null_odds[qid]
    return 100.0 * best / len(scores), threshold


def squad_v2_scores(articles, predictions, null_odds=None, na_prob_thresh=1.0):
    """Official v2.0 scores of `predictions` {id: text} against the `data` list
    of a SQuAD v2.0 file: exact, f1, total, HasAns_*/NoAns_* splits and, when
    `null_odds` {id: float} are given, best_exact/best_f1 and their thresholds."""
    has_answer, exact_raw, f1_raw = {}, {}, {}
    for qa in _questions(articles):
        qid = qa["id"]
        if qid not in predictions:
            continue
        has_answer[qid] = bool(qa.get("answers"))
        golds = [a["text"] for a in qa.get("answers") or [] if normalize_answer(a["text"])] or [""]
        exact_raw[qid] = max(exact_match(predictions[qid], gold) for gold in golds)
        f1_raw[qid] = max(f1_v2(predictions[qid], gold) for gold in golds)
    if not exact_raw:
        raise ValueError("no prediction matches a question of the data")
    odds = null_odds if null_odds is not None else {qid: 0.0 for qid in predictions}

    def thresholded(raw):
        return {qid: float(not has_answer[qid]) if odds[qid] > na_prob_thresh else score
                for qid, score in raw.items()}

    exact, f1 = thresholded(exact_raw), thresholded(f1_raw)
    results = {"exact": _mean_percent(exact, exact), "f1": _mean_percent(f1, f1),
               "total": len(exact)}
    for prefix, ids in (("HasAns", [q for q, a in has_answer.items() if a]),
                        ("NoAns", [q for q, a in has_answer.items() if not a])):
        if ids:
            results.update({f"{prefix}_exact": _mean_percent(exact, ids),
                            f"{prefix}_f1": _mean_percent(f1, ids), f"{prefix}_total": len(ids)})
    if null_odds is not None:
        results["best_exact"], results["best_exact_thresh"] = best_null_threshold(
            predictions, exact_raw, null_odds, has_answer)
        results["best_f1"], results["best_f1_thresh"] = best_null_threshold(
            predictions, f1_raw, null_odds, has_answer)
    return results
