"""SQuAD v1.1 and v2.0 for OpenAI GPT: its windows (`_start_ question
_delimiter_ paragraph _classify_` over BPE pieces), the null answer scored
from the `_classify_` state, and the SavedModel's graph (GPT's words and BPE
in the graph, not BERT's basic tokenizer) answering exactly as the Python
pipeline (`features` -> model -> `BytePairSpanHead.answers`) does for the
same model, on contexts longer than one window and on hostile text; what the
Python side cannot take (invalid UTF-8) or is slow to (a 50,000-character
context) gets defined answers. The runner, its export and the SavedModel
served in a fresh process are the every-family suite's
(tests/families/test_every_family.py). v2.0's graph is traced here; v1.1
differs from it only in the shared choice among the n-best entries
(`choose_answers`, tested with BERT's SavedModel)."""

import math
import os

import keras
import numpy as np
import pytest
import tensorflow as tf

from data.text.segments import stack_inputs
from export.serving_module import text_spec
from families.gpt.piece_text import piece_text
from families.gpt.question_answering.head import BytePairSpanHead
from families.gpt.question_answering.windows import GraphPieces
from tasks.question_answering.features import convert_examples_to_features
from tasks.question_answering.serving import QuestionAnsweringOptions, SquadAnswerer
from tasks.question_answering.squad_reader import SquadExample, read_squad_file, split_words
from tasks.question_answering.task import QuestionAnsweringConfig
from tests.conftest import FIXTURES
from tests.export_harness import HOSTILE_TEXTS
from tests.families.gpt import kit

SEQ_LENGTH, DOC_STRIDE, QUERY_LENGTH = 48, 16, 12  # several windows per context
SQUAD = {"max_query_length": QUERY_LENGTH, "n_best_size": 6, "max_answer_length": 8}
LONG_CONTEXT = ("The harbour counted 74 boats and the old lighthouse stood on the rocks. " * 700)[:50_000]
LONG_QUESTION = "How many boats did the harbour count on the long summer day " * 4 + "?"


def _example(qas_id, question, context):
    words, _, starts = split_words(context)
    return SquadExample(qas_id, question, context, tuple(words), tuple(starts))


def hostile_examples():
    """Each hostile string (cut to 2,000 characters) as a context asked about
    another one, a question longer than its context, contexts of whitespace."""
    texts = [text[:2000] for text in HOSTILE_TEXTS]
    examples = [_example(f"hostile-{i}", texts[(i + 4) % len(texts)], context)
                for i, context in enumerate(texts)]
    return examples + [_example("long-question", LONG_QUESTION, "Boats."),
                       _example("blank", "How many boats?", " \t\n\u202f ")]


@pytest.fixture(scope="module")
def model():
    keras.utils.set_random_seed(29)
    config = kit.tiny_config().replace(initializer_range=0.5)  # wide logits: varied answers
    return head_for(True, 0.0, config).build_model()


def head_for(v2, threshold, config):
    return BytePairSpanHead(QuestionAnsweringConfig(
        kit.ENCODER_FILE, config, max_seq_length=SEQ_LENGTH, doc_stride=DOC_STRIDE,
        version_2_with_negative=v2, null_score_diff_threshold=threshold, **SQUAD), kit.text_side())


@pytest.fixture(scope="module")
def examples():
    return {"fixture": read_squad_file(os.path.join(FIXTURES, "squad_v2_tiny.json"), False,
                                       True).examples,
            "hostile": hostile_examples()}


@pytest.fixture(scope="module")
def windows(model, examples):
    """{name: (features, raw model outputs)} of the training pipeline's windows."""
    found = {}
    for name, items in examples.items():
        features = convert_examples_to_features(items, kit.text_side(), SEQ_LENGTH, DOC_STRIDE,
                                                QUERY_LENGTH, is_training=False)
        outputs = model(stack_inputs([f.inputs for f in features]), training=False)
        raw = {key: np.asarray(outputs[key]) for key in ("start_logits", "end_logits")}
        raw["unique_ids"] = np.array([f.unique_id for f in features])
        found[name] = features, raw
    return found


def python_predictions(model, examples, windows, v2, threshold):
    head = head_for(v2, threshold, model.encoder.config)
    return head.answers(examples, *windows, head.config.postprocess)


@pytest.fixture(scope="module")
def threshold(model, examples, windows):
    """Halfway between two middle null odds of the fixture, so that both
    outcomes occur and none is a near-tie."""
    odds = sorted(python_predictions(model, examples["fixture"], windows["fixture"], True,
                                     0.0).null_odds.values())
    return (odds[len(odds) // 2 - 1] + odds[len(odds) // 2]) / 2


@pytest.fixture(scope="module")
def served(model, threshold):
    """The v2.0 SavedModel's answering graph, traced as `save_question_answering` traces it."""
    answerer = SquadAnswerer(model, kit.text_side(), QuestionAnsweringOptions(
        SEQ_LENGTH, DOC_STRIDE, version_2_with_negative=True, null_score_diff_threshold=threshold,
        **SQUAD))
    graph = tf.function(answerer, input_signature=[text_spec("question"), text_spec("context")])

    def serve(questions, contexts):
        outputs = graph(tf.constant(questions), tf.constant(contexts))
        return {k: [x.decode("utf-8") if isinstance(x, bytes) else x.item() for x in v.numpy()]
                for k, v in outputs.items()}
    return serve


def test_a_window_is_start_question_delimiter_paragraph_classify(examples, windows):
    text = kit.text_side()
    features = [f for f in windows["fixture"][0] if f.example_index == 0]
    assert len(features) > 2  # the context needs several windows
    question = GraphPieces(text).tokenize(examples["fixture"][0].question_text)
    for feature in features:
        tokens = feature.tokens
        length = int(feature.inputs["input_mask"].sum())
        assert tokens[:len(question) + 2] == ["_start_", *question, "_delimiter_"]
        assert tokens[-1] == "_classify_" and len(tokens) == length
        assert text.to_tokens(feature.inputs["input_word_ids"][:length]) == tokens
        assert sorted(feature.token_to_orig_map) == list(range(len(question) + 2, length - 1))
        assert feature.cls_index == 0 and feature.p_mask[0] == 0.0


def test_training_windows_label_the_answer_s_pieces_or_the_null_position():
    """Every answer inside a window is labelled at the pieces that spell it
    (each of this fixture's answers is whole words); other windows at 0."""
    text = kit.text_side()
    examples = read_squad_file(os.path.join(FIXTURES, "squad_v2_tiny.json"), True, True).examples
    features = convert_examples_to_features(examples, text, SEQ_LENGTH, DOC_STRIDE, QUERY_LENGTH,
                                            is_training=True)
    labelled = [f for f in features if not f.is_impossible]
    assert labelled
    for feature in features:
        example = examples[feature.example_index]
        if feature.is_impossible:
            assert feature.start_position == feature.end_position == 0
            continue
        span = feature.tokens[feature.start_position:feature.end_position + 1]
        assert piece_text(span) == piece_text(GraphPieces(text).tokenize(example.answer_text))


def test_the_null_answer_is_scored_from_the_classify_state(model):
    text = kit.text_side()
    inputs = text.encode_texts(["Where is the boat?", "A"], ["In the harbour today.", ""], 16)
    outputs = model(inputs, training=False)
    pooled = model.encoder(inputs, training=False)["pooled_output"].numpy().astype(np.float64)
    dense = model.get_layer("span").dense
    expected = pooled @ dense.kernel.numpy().astype(np.float64) + dense.bias.numpy()
    # One dot product of `hidden` float32 terms against float64: n eps of the logits' scale.
    bound = pooled.shape[1] * float(np.finfo(np.float32).eps) * max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(outputs["start_logits"].numpy()[:, 0], expected[:, 0], rtol=0, atol=bound)
    np.testing.assert_allclose(outputs["end_logits"].numpy()[:, 0], expected[:, 1], rtol=0, atol=bound)


@pytest.mark.parametrize("name", ["fixture", "hostile"])
def test_served_answers_equal_python_postprocessing(model, served, threshold, examples, windows,
                                                    name):
    items = examples[name]
    predictions = python_predictions(model, items, windows[name], True, threshold)
    if name == "fixture":
        assert len(windows[name][0]) > 2 * len(items)  # contexts longer than one window
    got = served([e.question_text for e in items], [e.context for e in items])
    for i, example in enumerate(items):
        qid = example.qas_id
        expected = predictions.predictions[qid]
        assert got["answer_text"][i] == expected, qid
        start, end = got["answer_start"][i], got["answer_end"][i]
        if expected:
            assert example.context[start:end] == expected
            entry = next(e for e in predictions.nbest[qid] if e["text"] == expected)
            assert got["probability"][i] == pytest.approx(entry["probability"], abs=1e-5)
            assert got["score"][i] == pytest.approx(entry["start_logit"] + entry["end_logit"], abs=1e-4)
        else:
            assert (start, end) == (-1, -1)
        assert got["null_odds"][i] == pytest.approx(predictions.null_odds[qid], abs=1e-4)
        assert got["has_answer"][i] == bool(expected)
    if name == "fixture":
        assert any(got["has_answer"]) and not all(got["has_answer"])  # both outcomes


def test_hostile_bytes_and_a_50000_character_context_get_defined_answers(served):
    contexts = [LONG_CONTEXT.encode(), b"The harbour \xff\xfe counted 74 boats.",
                b"\xc3\x28 boats \xe2\x82", b"\xff" * 20, b"", b" \t\r\n "]
    questions = [b"How many boats did the harbour count?", b"How many \xff boats?", b"\x80?",
                 b"Boats?", LONG_QUESTION.encode(), b""]
    got = served(questions, contexts)
    for i, context in enumerate(contexts):
        start, end = got["answer_start"][i], got["answer_end"][i]
        decoded = context.decode("utf-8", errors="ignore")
        if got["has_answer"][i]:
            assert 0 <= start < end <= len(decoded)
            assert got["answer_text"][i] == decoded[start:end]
        else:
            assert (start, end, got["answer_text"][i]) == (-1, -1, "")
        assert all(math.isfinite(got[key][i]) for key in ("score", "probability", "null_odds"))
    assert got["has_answer"][4:] == [False, False]  # nothing to answer from
