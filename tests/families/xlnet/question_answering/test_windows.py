"""XLNet's SQuAD windows: `paragraph <sep> question <sep> <cls>` padded on the left,
segment ids 0/1/2, `p_mask`, `cls_index` and training positions, with a
`spiece.model` learned here."""

import collections

import numpy as np
import pytest

from data.text.sentencepiece_vocab import SPECIAL_SYMBOLS
from families.xlnet.question_answering.beam import sentencepiece_text
from families.xlnet.segments import SEG_ID_A, SEG_ID_B, SEG_ID_CLS
from families.xlnet.text_side import XLNetText
from tasks.question_answering import features as squad_features, squad_reader
from tests.families.xlnet.spiece_model import learn_spiece_model
from tests.families.xlnet.squad import write_squad_v2

MAX_SEQ_LENGTH, DOC_STRIDE, MAX_QUERY_LENGTH = 40, 8, 12


@pytest.fixture(scope="module")
def text(tmp_path_factory):
    return XLNetText.from_file(learn_spiece_model(tmp_path_factory.mktemp("spm")), False)


@pytest.fixture(scope="module")
def squad_file(tmp_path_factory):
    return write_squad_v2(tmp_path_factory.mktemp("squad") / "v2.json")


@pytest.mark.parametrize("context", [
    "On May 3, 1921 the old house counted 111 rooms and 3 doors.",
    "  On\tMay 30,1921 the\u00a0red house\n\ncounted ``111'' rooms,  and 2,3 doors. ",
    "Ünder the tall house: 7 rooms\u202fand 9 doors (1900-1907).",
])
def test_context_pieces_are_the_paragraph_tokenized(text, context):
    """Each word's pieces tokenized alone, and the windows' pieces, are the
    paragraph's (the second context's no-break space splits a reader's word in
    two for the tokenizer: the windows tokenize each word alone there)."""
    words, _, starts = squad_reader.split_words(context)
    assert [i for word in words for i in text.encode(word)] == text.encode(context)
    example = squad_reader.SquadExample("q", "How many rooms?", context, tuple(words), tuple(starts))
    (feature,) = squad_features.convert_examples_to_features([example], text, 160, 8, 8, False)
    positions = sorted(feature.token_to_orig_map)
    assert feature.tokens[positions[0]:positions[-1] + 1] == text.tokenizer.tokenize(context)
    assert [feature.token_to_orig_map[p] for p in positions] == sorted(
        w for w, word in enumerate(words) for _ in text.tokenizer.tokenize(word))


def windows(text, squad_file, is_training):
    examples = squad_reader.read_squad_file(squad_file, is_training, True).examples
    return examples, squad_features.convert_examples_to_features(
        examples, text, MAX_SEQ_LENGTH, DOC_STRIDE, MAX_QUERY_LENGTH, is_training)


@pytest.mark.parametrize("is_training", [True, False])
def test_windows_are_laid_out_as_the_original_padded_on_the_left(text, squad_file, is_training):
    examples, features = windows(text, squad_file, is_training)
    assert max(f.doc_span_index for f in features) >= 2
    for f in features:
        example = examples[f.example_index]
        positions = sorted(f.token_to_orig_map)
        padding = MAX_SEQ_LENGTH - int(f.inputs["input_mask"].sum())
        query = text.tokenizer.tokenize(example.question_text)[:MAX_QUERY_LENGTH]
        assert positions == list(range(padding, padding + len(positions)))
        assert f.cls_index == MAX_SEQ_LENGTH - 1 and len(f.tokens) == MAX_SEQ_LENGTH
        assert f.tokens[padding + len(positions):] == ["<sep>", *query, "<sep>", "<cls>"]
        real = slice(padding, None)
        expected_ids = [text.tokenizer.sp.piece_to_id(p) for p in f.tokens[real]]
        assert f.inputs["input_word_ids"][real].tolist() == expected_ids
        assert not f.inputs["input_word_ids"][:padding].any()
        assert not f.inputs["input_mask"][:padding].any()
        assert f.inputs["input_type_ids"][real].tolist() == (
            [SEG_ID_A] * (len(positions) + 1) + [SEG_ID_B] * (len(query) + 1) + [SEG_ID_CLS])
        assert f.inputs["input_word_ids"][f.cls_index] == SPECIAL_SYMBOLS["<cls>"]
        assert np.flatnonzero(f.p_mask == 0).tolist() == positions + [f.cls_index]
        words = [f.token_to_orig_map[i] for i in positions]
        assert words == sorted(words) and set(words) <= set(range(len(example.doc_tokens)))


def test_training_positions_hold_the_answer_or_point_at_cls(text, squad_file):
    examples, features = windows(text, squad_file, is_training=True)
    answered = collections.Counter()
    for f in features:
        example = examples[f.example_index]
        if f.is_impossible:
            assert (f.start_position, f.end_position) == (f.cls_index, f.cls_index)
            continue
        assert not example.is_impossible
        assert f.token_is_max_context.get(f.start_position) is not None
        pieces = f.tokens[f.start_position:f.end_position + 1]
        assert sentencepiece_text(pieces) == example.answer_text
        answered[example.qas_id] += 1
    # Every answerable question is inside at least one window; none without an answer is.
    assert set(answered) == {e.qas_id for e in examples if not e.is_impossible}


def test_each_context_piece_is_scored_in_one_window(text, squad_file):
    examples, features = windows(text, squad_file, is_training=False)
    scored = collections.Counter()
    for f in features:
        for position, is_max in f.token_is_max_context.items():
            if is_max:
                first = min(f.token_to_orig_map)
                span_start = sum(1 for g in features if g.example_index == f.example_index
                                 and g.doc_span_index < f.doc_span_index) * DOC_STRIDE
                scored[(f.example_index, span_start + position - first)] += 1
    assert set(scored.values()) == {1}
