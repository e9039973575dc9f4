"""The SQuAD SavedModels (v1.1 and v2.0) of an XLNet-tiny span labeler in a fresh
tensorflow + tensorflow_text process: the served answers, null decisions and
scores are the ones the Python pipeline (`features` -> model ->
`families/xlnet/question_answering/beam.py`) predicts for the same model and inputs,
on contexts longer than one window, questions without an answer and hostile
text. Answers are cut inside words where `get_final_text` finds the pieces'
text there, as in Python ("lorem ips" of "lorem ipsum")."""

import base64
import json
import math

import keras
import numpy as np
import pytest

from data.text.segments import stack_inputs
from export.export_meta import ExportMeta
from export.export_model import build_task_model
from families.xlnet.config import XLNetConfig
from families.xlnet.encoder import XLNetEncoder
from families.xlnet.question_answering.head import BeamHead
from families.xlnet.span_labeler import XLNetSpanLabeler
from tasks.question_answering.features import convert_examples_to_features
from tasks.question_answering.squad_reader import SquadExample, read_squad_file, split_words
from tasks.question_answering.task import QuestionAnsweringConfig
from tests.export_harness import (HOSTILE_TEXTS, check_squad_listing, check_squad_warmup,
                                  export_squad_version, run_fresh)
from tests.families.xlnet.spiece_model import learn_spiece_model
from tests.families.xlnet.squad import write_squad_v2

SEQ_LENGTH, DOC_STRIDE, QUERY_LENGTH = 48, 16, 12  # several windows per context
START_N_TOP, END_N_TOP = 3, 4
SQUAD = {"max_query_length": QUERY_LENGTH, "n_best_size": 6, "max_answer_length": 8}
BEAM = ("start_top_log_probs", "start_top_index", "end_top_log_probs", "end_top_index",
        "cls_logits")
# Whitespace as SQuAD splits words and as SentencePiece does not, accents, CJK.
ODD_TEXTS = ["On May 3,\u00a01950 the old\u3000house  counted\t74 rooms.\n",
             "The caf\u00e9 counted 12 rooms, na\u00efve doors and 東京 rooms.",
             "rooms" + "\u2009" * 3 + "doors\u202fhouse 1,234, 5,6"]

_LOADER = """
import base64, json
import tensorflow as tf
import tensorflow_text  # noqa: F401

def strings(values):
    return tf.constant([base64.b64decode(t) for t in values])

report = {}
for version in ("v1", "v2"):
    serve = tf.saved_model.load(ARGS[version]).signatures["serving_default"]
    report[version] = {"cli": saved_model_cli_show(ARGS[version])}
    for name in ("fixture", "hostile", "blank"):
        outputs = serve(question=strings(ARGS[f"{name}_questions"]),
                        context=strings(ARGS[f"{name}_contexts"]))
        report[version][name] = {k: [x.decode("utf-8") if isinstance(x, bytes) else x.item()
                                     for x in v.numpy()] for k, v in outputs.items()}
print(json.dumps(report))
"""


def _example(qas_id, question, context):
    words, _, starts = split_words(context)
    return SquadExample(qas_id, question, context, tuple(words), tuple(starts))


def _hostile_examples():
    """Every hostile string as a question about another one, and odd text both ways."""
    texts = HOSTILE_TEXTS + ODD_TEXTS
    return [_example(f"hostile-{i}", texts[(i + 4) % len(texts)], context)
            for i, context in enumerate(texts)]


def _blank_examples():
    """A request whose every context has no word (no span for the beam), the
    first the hostile request's first row."""
    first = _hostile_examples()[0]
    assert first.context == ""
    return [first] + [_example(f"blank-{i}", "How many rooms did the house count?", context)
                      for i, context in enumerate([" ", "\t\n\r \u202f"])]


def python_predictions(model, examples, text_side, v2, threshold):
    """`SquadPredictions` of the training pipeline, and the number of windows."""
    config = QuestionAnsweringConfig(
        text_side.model_file, model.encoder.config, do_lower_case=text_side.do_lower_case,
        max_seq_length=SEQ_LENGTH, doc_stride=DOC_STRIDE, version_2_with_negative=v2,
        null_score_diff_threshold=threshold, start_n_top=START_N_TOP, end_n_top=END_N_TOP,
        **SQUAD)
    head = BeamHead(config)
    features = convert_examples_to_features(examples, text_side, SEQ_LENGTH, DOC_STRIDE,
                                            QUERY_LENGTH, is_training=False)
    inputs = stack_inputs([f.inputs for f in features])
    inputs.update(head.inputs(features, training=False))
    outputs = model(inputs, training=False)
    raw = {name: np.asarray(outputs[name]) for name in BEAM}
    raw["unique_ids"] = np.array([f.unique_id for f in features])
    return head.answers(examples, features, raw, config.postprocess), len(features)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """v2.0 exported from a run's output_dir, v1.1 with `export_for_runner`; a
    random XLNet-tiny with wide weights. The v2.0 null threshold lies amid the
    fixture's null odds, so both outcomes occur."""
    tmp = tmp_path_factory.mktemp("squad_xlnet")
    keras.utils.set_random_seed(23)
    config = XLNetConfig.from_preset("xlnet_tiny").replace(n_token=128, initializer_range=0.5)
    task_model = keras.saving.serialize_keras_object(
        XLNetSpanLabeler(XLNetEncoder(config), START_N_TOP, END_N_TOP))
    spiece = learn_spiece_model(tmp)
    fixture = read_squad_file(write_squad_v2(tmp / "houses.json", num_paragraphs=4), False,
                              True).examples
    examples = {"fixture": fixture, "hostile": _hostile_examples(), "blank": _blank_examples()}
    exported, models, thresholds = {}, {}, {}
    for version in ("v1", "v2"):
        v2 = version == "v2"
        meta = ExportMeta("squad", config, spiece, do_lower_case=False,
                          max_seq_length=SEQ_LENGTH, doc_stride=DOC_STRIDE,
                          squad={**SQUAD, "version_2_with_negative": v2,
                                 "null_score_diff_threshold": 0.0}, task_model=task_model)
        models[version] = build_task_model(meta)
        null_odds = (python_predictions(models[version], fixture, meta.text_side(), True, 0.0)[0]
                     .null_odds.values() if v2 else None)
        exported[version], thresholds[version] = export_squad_version(models[version], meta, tmp,
                                                                      version, null_odds)
    args = dict(exported)
    for name, items in examples.items():
        for field, key in (("question_text", "questions"), ("context", "contexts")):
            args[f"{name}_{key}"] = [base64.b64encode(getattr(e, field).encode("utf-8")).decode()
                                     for e in items]
    report = json.loads(run_fresh(_LOADER, tmp, **args).strip().splitlines()[-1])
    return report, examples, models, meta.text_side(), thresholds, exported


@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize("name", ["fixture", "hostile", "blank"])
def test_served_answers_equal_python_postprocessing(served, version, name):
    report, examples, models, text_side, thresholds, _ = served
    items = examples[name]
    v2 = version == "v2"
    predictions, num_windows = python_predictions(models[version], items, text_side, v2,
                                                  thresholds[version])
    if name == "fixture":
        assert num_windows > 2 * len(items)  # contexts longer than one window
    got = report[version][name]
    for i, example in enumerate(items):
        qid = example.qas_id
        predicted = predictions.predictions[qid]
        answered = bool(predicted) and (not v2 or predictions.null_odds[qid] <= thresholds[version])
        assert got["answer_text"][i] == (predicted if answered else ""), qid
        start, end = got["answer_start"][i], got["answer_end"][i]
        if answered:
            assert example.context[start:end] == predicted
        else:
            assert (start, end) == (-1, -1)
        nbest = predictions.nbest[qid]
        entry = next((e for e in nbest if e["text"] == predicted), nbest[0])
        assert got["probability"][i] == pytest.approx(entry["probability"], abs=1e-5)
        assert got["score"][i] == pytest.approx(entry["start_log_prob"] + entry["end_log_prob"],
                                                rel=1e-5, abs=1e-4)
        if v2:
            assert got["null_odds"][i] == pytest.approx(predictions.null_odds[qid], abs=1e-4)
            assert got["has_answer"][i] == answered
    if name == "fixture":
        assert sum(bool(t) for t in got["answer_text"]) >= 2  # answers are not trivial
        if v2:
            assert any(got["has_answer"]) and not all(got["has_answer"])  # both outcomes


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_contexts_without_words_answer_nothing_for_certain(served, version):
    """No answer, the one entry "" at log-probability 0 (probability 1), the
    answer class's null odds; the first row as beside other contexts (its
    window's logit in another batch: float32 rounding, far below 1e-5)."""
    report = served[0][version]
    got = report["blank"]
    assert got["answer_text"] == ["", "", ""]
    assert got["answer_start"] == got["answer_end"] == [-1, -1, -1]
    assert got["score"] == [0.0, 0.0, 0.0] and got["probability"] == [1.0, 1.0, 1.0]
    beside = {name: values[0] for name, values in report["hostile"].items()}
    assert {name: values[0] for name, values in got.items()} == pytest.approx(beside, abs=1e-5)
    if version == "v2":
        assert got["has_answer"] == [False, False, False]
        assert all(math.isfinite(odds) for odds in got["null_odds"])


def test_saved_model_cli_lists_the_outputs(served):
    check_squad_listing(served[0])


def test_warmup_requests_run(served):
    check_squad_warmup(served[-1]["v2"])
