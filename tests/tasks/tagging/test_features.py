"""First-piece labels, dropped words, overlapping windows and document context,
with BERT's text side and XLNet's (left padding, `<sep> <cls>` last)."""

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contracts import registry
from data.text.tokenization import FullTokenizer
from tasks.tagging.conll_reader import TaggedSentence, labels_from_sentences, read_tagged_file
from tasks.tagging.features import build_tagging_features, owning_windows, plan_windows
from tasks.tagging.predictions import values_per_word
from tests.conftest import FIXTURES
from tests.families.xlnet.spiece_model import learn_spiece_model


@pytest.fixture(scope="module")
def tokenizer(uncased_vocab_file):
    return FullTokenizer(uncased_vocab_file, do_lower_case=True)


@pytest.fixture(scope="module")
def xlnet_text(tmp_path_factory):
    return registry.text_side_for("xlnet", learn_spiece_model(tmp_path_factory.mktemp("spm")), False)


def _sentence(words, tags=None, document=0):
    return TaggedSentence(tuple(words), tuple(tags or ["O"] * len(words)), document, "mem", 1)


LABELS = {"O": 0, "B-PER": 1, "I-PER": 2, "B-MISC": 3, "I-MISC": 4}


def test_label_on_first_piece_only_and_dropped_words_get_unk(tokenizer):
    words = ["Hans", "\u200b", "Antidisestablishmentarianism", "\x07", "Pfeiffer"]
    tags = ["B-PER", "O", "B-MISC", "O", "B-PER"]
    features = build_tagging_features([_sentence(words, tags)], tokenizer, LABELS, 32)
    ids = features.inputs["input_word_ids"][0]
    vocab = tokenizer.vocab
    pieces = [tokenizer.tokenize(w) or ["[UNK]"] for w in words]
    assert len(pieces[2]) > 3  # a word split into many pieces
    expected = ["[CLS]"] + [p for word in pieces for p in word] + ["[SEP]"]
    assert vocab.to_tokens(ids[:len(expected)].tolist()) == expected
    first_positions = np.cumsum([1] + [len(p) for p in pieces[:-1]])
    assert np.flatnonzero(features.label_weights[0]).tolist() == first_positions.tolist()
    assert features.label_ids[0, first_positions].tolist() == [LABELS[t] for t in tags]
    assert features.word_index[0, first_positions].tolist() == list(range(5))
    assert vocab.to_tokens([ids[first_positions[1]], ids[first_positions[3]]]) == ["[UNK]"] * 2


def test_long_sentence_windows_overlap_and_every_word_predicted_once(tokenizer):
    words = [f"w{i}" if i % 3 else "Antidisestablishmentarianism" for i in range(40)]
    features = build_tagging_features([_sentence(words)], tokenizer, LABELS, max_seq_length=24,
                                      doc_stride=8)
    assert len(features) > 3
    assert (features.inputs["input_mask"].sum(axis=1) <= 24).all()
    per_word = values_per_word(features.label_weights, features.word_index,
                               features.sentence_index, features.word_index)
    assert per_word == {0: list(range(40))}
    # Consecutive windows share words: the same piece ids appear in both.
    first, second = (features.inputs["input_word_ids"][i] for i in (0, 1))
    assert set(first[1:-1].tolist()) & set(second[1:-1].tolist())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=60), st.integers(6, 20),
       st.integers(1, 20))
def test_windows_cover_every_word_within_budget(counts, max_pieces, stride):
    spans = plan_windows(counts, max_pieces, stride)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    assert spans[0][0] == 0 and spans[-1][1] == len(counts)
    for (start, end), (next_start, _) in zip(spans, spans[1:]):
        assert start < next_start <= end  # progress, and no gap
    for start, end in spans:
        assert offsets[end] - offsets[start] <= max_pieces
    owners = owning_windows(counts, spans)
    for word, owner in enumerate(owners):
        assert spans[owner][0] <= word < spans[owner][1]


def test_document_context_fills_window_without_labels(tokenizer):
    sentences = [_sentence(["alpha", "beta"], document=1), _sentence(["Hans"], ["B-PER"], 1),
                 _sentence(["gamma", "delta"], document=1), _sentence(["other"], document=2)]
    plain = build_tagging_features(sentences, tokenizer, LABELS, 16)
    context = build_tagging_features(sentences, tokenizer, LABELS, 16, document_context=True)
    vocab = tokenizer.vocab
    row = context.inputs["input_word_ids"][1]
    tokens = vocab.to_tokens(row[:int(context.inputs["input_mask"][1].sum())].tolist())
    assert tokens == ["[CLS]", "alpha", "beta", "hans", "gamma", "delta", "[SEP]"]
    assert np.flatnonzero(context.label_weights[1]).tolist() == [3]
    assert context.label_ids[1, 3] == LABELS["B-PER"]
    # Document 2 stays out of document 1's windows, and back.
    last = vocab.to_tokens(context.inputs["input_word_ids"][3][:3].tolist())
    assert last == ["[CLS]", "other", "[SEP]"]
    assert context.label_weights.sum() == plain.label_weights.sum() == 6


def test_fixture_file_round_trip(tokenizer):
    sentences = read_tagged_file(os.path.join(FIXTURES, "conll_tiny", "dev.txt"))
    labels = labels_from_sentences(sentences)
    features = build_tagging_features(sentences, tokenizer,
                                      {label: i for i, label in enumerate(labels)}, 16, 6)
    gold = values_per_word(features.label_weights, features.word_index, features.sentence_index,
                           features.label_ids)
    assert [[labels[i] for i in gold[s]] for s in range(len(sentences))] == [
        list(s.tags) for s in sentences]


def test_empty_input_and_bad_settings(tokenizer):
    features = build_tagging_features([], tokenizer, LABELS, 16)
    assert len(features) == 0 and features.inputs["input_word_ids"].shape == (0, 16)
    with pytest.raises(ValueError, match="max_seq_length 2"):
        build_tagging_features([_sentence(["a"])], tokenizer, LABELS, 2)
    with pytest.raises(ValueError, match="doc_stride"):
        build_tagging_features([_sentence(["a"])], tokenizer, LABELS, 16, doc_stride=0)


def _check_first_pieces(features, sentences, text):
    """Every word is labelled once, at its own first piece."""
    per_word = values_per_word(features.label_weights, features.word_index,
                               features.sentence_index, features.word_index)
    assert per_word == {i: list(range(len(s.words))) for i, s in enumerate(sentences)}
    for row, column in zip(*np.nonzero(features.label_weights)):
        words = sentences[features.sentence_index[row]].words
        first = (text.encode(words[features.word_index[row, column]]) or [text.unk_id])[0]
        assert features.inputs["input_word_ids"][row, column] == first


def test_xlnet_windows_are_padded_on_the_left(xlnet_text):
    words = ["On", "May", "\u0301", "3,", "1950", "the", "house"]
    tags = ["O", "B-MISC", "O", "I-MISC", "I-MISC", "O", "B-PER"]
    features = build_tagging_features([_sentence(words, tags)], xlnet_text, LABELS, 24)
    pieces = [xlnet_text.encode(w) or [xlnet_text.unk_id] for w in words]
    assert pieces[2] == [0] and len(pieces[3]) > 1  # a word without pieces, one split in two
    flat = [p for word in pieces for p in word]
    padding = 24 - len(flat) - 2
    assert features.inputs["input_word_ids"][0].tolist() == [0] * padding + flat + [4, 3]
    assert features.inputs["input_mask"][0].tolist() == [0] * padding + [1] * (len(flat) + 2)
    assert features.inputs["input_type_ids"][0].tolist() == [4] * padding + [0] * (len(flat) + 1) + [2]
    first_positions = padding + np.cumsum([0] + [len(p) for p in pieces[:-1]])
    assert np.flatnonzero(features.label_weights[0]).tolist() == first_positions.tolist()
    assert features.label_ids[0, first_positions].tolist() == [LABELS[t] for t in tags]


def test_xlnet_long_sentences_and_document_context(xlnet_text):
    long = _sentence([f"house{i}" if i % 3 else "1950," for i in range(30)], document=1)
    sentences = [_sentence(["the", "red"], document=1), long, _sentence(["May"], ["B-PER"], 1),
                 _sentence(["doors", "old"], document=1)]
    for context in (False, True):
        features = build_tagging_features(sentences, xlnet_text, LABELS, 12, doc_stride=4,
                                          document_context=context)
        assert (features.sentence_index == 1).sum() > 3  # the long sentence in several windows
        _check_first_pieces(features, sentences, xlnet_text)
    # With context, the short sentences' windows are filled by their neighbours.
    row = np.flatnonzero(features.sentence_index == 2)[0]
    assert features.inputs["input_mask"][row].sum() == 12
