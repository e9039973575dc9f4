"""N-best, text mapping and null answers against the original post-processing
(Model Garden's `squad_lib.postprocess_output`, a port of google-research's
`write_predictions`), on random logits over the fixture windows."""

import collections
import json
import os

import numpy as np
import pytest

from data.text.tokenization import FullTokenizer
from tasks.question_answering import (answers as question_answering_answers,
                                      features as squad_features, squad_reader)
from tests.conftest import FIXTURES

squad_lib = pytest.importorskip("official.nlp.data.squad_lib")

RawResult = collections.namedtuple("RawResult", ["unique_id", "start_logits", "end_logits"])
FILES = {False: os.path.join(FIXTURES, "squad_v1_tiny.json"),
         True: os.path.join(FIXTURES, "squad_v2_tiny.json")}


@pytest.fixture(scope="module")
def tokenizer(uncased_vocab_file):
    return FullTokenizer(uncased_vocab_file, do_lower_case=True)


def _windows(v2, tokenizer, max_seq_length=40, doc_stride=12):
    examples = squad_reader.read_squad_file(FILES[v2], False, v2).examples
    features = squad_features.convert_examples_to_features(
        examples, tokenizer, max_seq_length, doc_stride, max_query_length=12, is_training=False)
    return examples, features


def _random_results(features, seed, ties):
    rng = np.random.default_rng(seed)
    results = {}
    for f in features:
        logits = rng.normal(0, 3, size=(2, len(f.inputs["input_word_ids"])))
        if ties:
            logits = np.round(logits)
        results[f.unique_id] = (logits[0].tolist(), logits[1].tolist())
    return results


class _TheirExample:
    def __init__(self, example):
        self.qas_id = example.qas_id
        self.doc_tokens = list(example.doc_tokens)


@pytest.mark.parametrize("v2", [False, True])
@pytest.mark.parametrize("seed,n_best_size,max_answer_length,ties", [
    (0, 20, 30, False), (1, 5, 3, True), (2, 2, 1, False), (3, 3, 2, True), (4, 10, 8, False)])
def test_matches_original_postprocessing(v2, seed, n_best_size, max_answer_length, ties, tokenizer):
    examples, features = _windows(v2, tokenizer)
    results = _random_results(features, seed, ties)
    threshold = 0.5 * (seed - 2)
    config = question_answering_answers.PostprocessConfig(n_best_size, max_answer_length, True,
                                                          v2, threshold)
    ours = question_answering_answers.postprocess(examples, features, results, config)
    their_predictions, their_nbest, their_odds = squad_lib.postprocess_output(
        [_TheirExample(e) for e in examples], features,
        [RawResult(uid, s, e) for uid, (s, e) in results.items()],
        n_best_size, max_answer_length, True, v2, threshold)

    def original_text(text):  # ours is cut from the context; theirs joins words with " "
        return " ".join(text.split())

    for example in examples:
        qid = example.qas_id
        theirs = their_predictions[qid]
        assert original_text(ours.predictions[qid]) == ("" if theirs == "empty" else theirs)
        assert ours.predictions[qid] in example.context
        assert len(ours.nbest[qid]) == len(their_nbest[qid])
        for a, b in zip(ours.nbest[qid], their_nbest[qid]):
            assert original_text(a["text"]) == ("" if b["text"] == "empty" else b["text"])
            assert a["text"] in example.context
            assert a["probability"] == pytest.approx(b["probability"], abs=1e-12)
            assert (a["start_logit"], a["end_logit"]) == (b["start_logit"], b["end_logit"])
        if v2:
            assert ours.null_odds[qid] == pytest.approx(their_odds[qid], abs=1e-12)
    assert ours.null_odds is None if not v2 else set(ours.null_odds) == set(ours.predictions)


@pytest.mark.parametrize("pred_text,orig_text,do_lower_case", [
    ("steve smith", "Steve Smith's", True), ("paris", "Paris,", True), ("1895", "(1895-1943).", True),
    ("cafe", "Café!", True), ("Café", "Café!", False), ("missing", "Nowhere", True),
    ("new york", "New\u00a0York", True), ("", "Anything", True), ("a b", "a  b", True),
])
def test_get_final_text_matches_original(pred_text, orig_text, do_lower_case):
    assert question_answering_answers.get_final_text(pred_text, orig_text, do_lower_case) == \
        squad_lib.get_final_text(pred_text, orig_text, do_lower_case)


def test_answers_are_cut_from_the_context_across_line_breaks():
    context = "born in\nNew   York City, in 1900"
    words, _, starts = squad_reader.split_words(context)
    example = squad_reader.SquadExample("q", "?", context, tuple(words), tuple(starts))
    orig, in_context = question_answering_answers.span_texts(example, 1, 4, "in new york city",
                                                             True)
    assert orig == "in New York City"
    assert in_context == "in\nNew   York City"


def test_pure_window_rules():
    token_to_orig_map = {3: 0, 4: 0, 5: 1, 6: 2}
    max_context = {3: True, 4: True, 5: False, 6: True}
    start = [0, 0, 0, 5, 1, 9, 2, 0]
    end = [0, 0, 0, 1, 6, 0, 5, 9]
    candidates = question_answering_answers.window_candidates(0, start, end, token_to_orig_map,
                                                     max_context, 3, 2)
    # Start 5 is not max-context; 7 is padding; (3, 6) is too long; (6, 4) ends before it starts.
    assert [(c.start_index, c.end_index) for c in candidates] == [(3, 4), (6, 6)]
    assert question_answering_answers.best_indexes([1, 3, 3, 2], 3) == [1, 2, 3]
    null = question_answering_answers.null_candidate([([2, 0], [1, 0]), ([0.5, 0], [0.5, 0])])
    assert (null.feature_index, null.score) == (1, 1.0)


def test_write_predictions_is_valid_json(tmp_path, tokenizer):
    examples, features = _windows(True, tokenizer)
    config = question_answering_answers.PostprocessConfig(version_2_with_negative=True)
    predictions = question_answering_answers.postprocess(
        examples, features, _random_results(features, 7, False), config)
    paths = question_answering_answers.write_predictions(predictions, str(tmp_path))
    assert sorted(os.path.basename(p) for p in paths) == [
        "nbest_predictions.json", "null_odds.json", "predictions.json"]
    for path in paths:
        with open(path, encoding="utf-8") as f:
            assert set(json.load(f)) == {e.qas_id for e in examples}
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_missing_logits_are_an_error(tokenizer):
    examples, features = _windows(False, tokenizer)
    with pytest.raises(KeyError, match="no logits"):
        question_answering_answers.postprocess(examples, features, {},
                                               question_answering_answers.PostprocessConfig())
