"""SQuAD reading and windowing against the original algorithm (Model Garden's
`squad_lib`, a line-for-line port of google-research's `run_squad.py`)."""

import json
import os

import numpy as np
import pytest

from data.text.tokenization import FullTokenizer
from tasks.question_answering import features as squad_features, squad_reader
from tests.conftest import FIXTURES

squad_lib = pytest.importorskip("official.nlp.data.squad_lib")
official_tokenization = pytest.importorskip("official.nlp.tools.tokenization")

V1 = os.path.join(FIXTURES, "squad_v1_tiny.json")
V2 = os.path.join(FIXTURES, "squad_v2_tiny.json")
BAD = os.path.join(FIXTURES, "squad_v1_bad_rows.json")


@pytest.fixture(scope="module")
def tokenizer(uncased_vocab_file):
    return FullTokenizer(uncased_vocab_file, do_lower_case=True)


@pytest.fixture(scope="module")
def their_tokenizer(uncased_vocab_file):
    return official_tokenization.FullTokenizer(uncased_vocab_file, do_lower_case=True)


def _single_answer_copy(path, tmp_path):
    """The original reader trains only on questions with exactly one answer."""
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    for article in document["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                qa["answers"] = qa["answers"][:1]
    out = tmp_path / os.path.basename(path)
    out.write_text(json.dumps(document), encoding="utf-8")
    return str(out)


def test_split_words_maps_characters_to_words():
    words, char_to_word, starts = squad_reader.split_words("  New\u202fYork\n\ncity ")
    assert words == ["New", "York", "city"]
    assert starts == [2, 6, 12]
    assert char_to_word == [-1, -1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2]


@pytest.mark.parametrize("path,v2", [(V1, False), (V2, True)])
@pytest.mark.parametrize("is_training", [True, False])
def test_examples_match_original(path, v2, is_training, tmp_path):
    path = _single_answer_copy(path, tmp_path)
    ours = squad_reader.read_squad_file(path, is_training, v2)
    theirs = squad_lib.read_squad_examples(path, is_training, v2)
    assert not ours.skipped
    assert [e.qas_id for e in ours.examples] == [e.qas_id for e in theirs]
    for a, b in zip(ours.examples, theirs):
        assert list(a.doc_tokens) == b.doc_tokens
        assert a.question_text == b.question_text
        if is_training:
            assert (a.start_position, a.end_position, a.is_impossible) == (
                b.start_position, b.end_position, b.is_impossible)
            assert a.answer_text == b.orig_answer_text
        for word, start in zip(a.doc_tokens, a.word_starts):
            assert a.context[start:start + len(word)] == word


def _their_features(examples, tokenizer, max_seq_length, doc_stride, max_query_length, is_training):
    features = []
    squad_lib.convert_examples_to_features(
        examples, tokenizer, max_seq_length, doc_stride, max_query_length, is_training,
        output_fn=lambda f, **unused: features.append(f), batch_size=1)
    return features


@pytest.mark.parametrize("path,v2", [(V1, False), (V2, True)])
@pytest.mark.parametrize("is_training", [True, False])
@pytest.mark.parametrize("max_seq_length,doc_stride,max_query_length", [(40, 16, 12), (48, 7, 20),
                                                                        (128, 128, 64)])
def test_features_match_original(path, v2, is_training, max_seq_length, doc_stride,
                                 max_query_length, tokenizer, their_tokenizer, tmp_path):
    path = _single_answer_copy(path, tmp_path)
    examples = squad_reader.read_squad_file(path, is_training, v2).examples
    ours = squad_features.convert_examples_to_features(
        examples, tokenizer, max_seq_length, doc_stride, max_query_length, is_training)
    theirs = _their_features(squad_lib.read_squad_examples(path, is_training, v2),
                             their_tokenizer, max_seq_length, doc_stride, max_query_length,
                             is_training)
    assert len(ours) == len(theirs)
    assert max(f.doc_span_index for f in ours) > 0 or max_seq_length == 128
    for a, b in zip(ours, theirs):
        assert (a.unique_id, a.example_index, a.doc_span_index) == (
            b.unique_id, b.example_index, b.doc_span_index)
        assert a.tokens == b.tokens
        assert a.token_to_orig_map == b.token_to_orig_map
        assert a.token_is_max_context == b.token_is_max_context
        np.testing.assert_array_equal(a.inputs["input_word_ids"], b.input_ids)
        np.testing.assert_array_equal(a.inputs["input_mask"], b.input_mask)
        np.testing.assert_array_equal(a.inputs["input_type_ids"], b.segment_ids)
        if is_training:
            assert (a.start_position, a.end_position) == (b.start_position, b.end_position)


def test_doc_spans_and_max_context():
    spans = squad_features.doc_spans(10, 5, 2)
    assert [(s.start, s.length) for s in spans] == [(0, 5), (2, 5), (4, 5), (6, 4)]
    # Piece 4 is last in window 0 and first in window 2, but central in window 1.
    assert [squad_features.is_max_context(spans, i, 4) for i in range(4)] == [
        False, True, False, False]
    # A tie (piece 3 is an end of both windows) goes to the first window.
    spans = squad_features.doc_spans(10, 4, 3)
    assert [squad_features.is_max_context(spans, i, 3) for i in range(3)] == [True, False, False]
    assert squad_features.doc_spans(0, 4, 3) == [squad_features.DocSpan(0, 0)]


def test_improve_answer_span(tokenizer):
    pieces = tokenizer.tokenize("born ( 1895 - 1943 ) .")
    start, end = squad_features.improve_answer_span(pieces, 0, len(pieces) - 1, tokenizer, "1895")
    assert pieces[start:end + 1] == ["1895"]


def test_bad_rows_are_skipped_and_named(tokenizer, caplog):
    squad_file = squad_reader.read_squad_file(BAD, is_training=True)
    ids = [e.qas_id for e in squad_file.examples]
    assert ids == ["bad-second-ok", "good-long-question", "good-long-context"]
    skipped = {line.split(":")[0] for line in squad_file.skipped}
    assert skipped == {"bad-no-answer", "bad-offset", "bad-outside", "good-long-question",
                       "bad-empty-question", "bad-empty-context"}
    assert len(squad_file.skipped) == 6
    assert "bad-offset" in caplog.text and "skipped 6 question(s)" in caplog.text
    second = squad_file.examples[0]
    assert second.doc_tokens[second.start_position] == "Paris,"
    features = squad_features.convert_examples_to_features(
        squad_file.examples, tokenizer, max_seq_length=64, doc_stride=32, max_query_length=16,
        is_training=True)
    long_context = [f for f in features if f.example_index == 2]
    assert len(long_context) > 20
    answered = [f for f in long_context if f.start_position]
    assert len(answered) >= 1
    assert all(f.tokens[f.start_position] == "here" for f in answered)
    assert all(len(f.inputs["input_word_ids"]) == 64 for f in features)


def test_empty_context_gets_a_question_only_window(tokenizer):
    squad_file = squad_reader.read_squad_file(BAD, is_training=False)
    example = next(e for e in squad_file.examples if e.qas_id == "bad-empty-context")
    assert example.doc_tokens == ()
    (feature,) = squad_features.convert_examples_to_features(
        [example], tokenizer, 32, 8, 8, is_training=False)
    assert feature.tokens == ["[CLS]", *tokenizer.tokenize("Anything?"), "[SEP]", "[SEP]"]
    assert feature.token_to_orig_map == {}


def test_impossible_training_windows_point_at_cls(tokenizer):
    examples = squad_reader.read_squad_file(V2, True, True).examples
    features = squad_features.convert_examples_to_features(examples, tokenizer, 64, 32, 16, True)
    for f in features:
        if examples[f.example_index].is_impossible:
            assert (f.start_position, f.end_position) == (0, 0)


def test_sequence_too_short_for_question_is_an_error():
    with pytest.raises(ValueError, match="max_query_length"):
        squad_features.check_lengths(max_seq_length=64, max_query_length=61, doc_stride=8)


def test_not_squad_json_is_a_clear_error(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"version": "1.1"}')
    with pytest.raises(squad_reader.SquadFormatError, match="data"):
        squad_reader.read_squad_file(str(path), is_training=False)


def test_has_answers_tells_test_files_apart(tmp_path):
    assert squad_reader.read_squad_file(V2, False, True).has_answers
    path = tmp_path / "test.json"
    path.write_text(json.dumps({"data": [{"paragraphs": [{"context": "a b", "qas": [
        {"id": "q", "question": "a?"}]}]}]}))
    squad_file = squad_reader.read_squad_file(str(path), False, version_2_with_negative=True)
    assert [e.qas_id for e in squad_file.examples] == ["q"] and not squad_file.has_answers


def test_invalid_utf8_names_file_line_and_byte(tmp_path):
    path = tmp_path / "bad.json"
    path.write_bytes(b'{"data": [\n{"title": "caf\xe9"}]}')
    with pytest.raises(squad_reader.SquadFormatError,
                       match=f"{path}:2: not UTF-8 \\(invalid continuation byte at byte 25\\)"):
        squad_reader.read_squad_file(str(path), is_training=True)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())  # the offset counts the BOM
    with pytest.raises(squad_reader.SquadFormatError, match="at byte 28"):
        squad_reader.read_squad_file(str(path), is_training=True)


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.json"
    with open(V1, "rb") as f:
        path.write_bytes(b"\xef\xbb\xbf" + f.read())
    with_bom = squad_reader.read_squad_file(str(path), is_training=True)
    assert with_bom.examples == squad_reader.read_squad_file(V1, is_training=True).examples


@pytest.mark.parametrize("document", [
    {"version": "1.1", "data": []},
    {"data": [{"title": "t", "paragraphs": [{"context": "a b", "qas": []}]}]},
    {"data": [{"title": "t", "paragraphs": [{"context": "a b", "qas": [{"question": "a?"}]}]}]},
])
def test_a_file_without_examples_is_an_error_naming_it(tmp_path, document):
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(document))
    with pytest.raises(squad_reader.SquadFormatError, match=f"{path}: no examples"):
        squad_reader.read_squad_file(str(path), is_training=True)
