"""The SQuAD SavedModels (v1.1 and v2.0) in a fresh tensorflow +
tensorflow_text process: the served answers are the ones run_squad.py's
Python post-processing (`tasks/question_answering/answers.py`) predicts for the same
model and inputs, on contexts longer than one window and on hostile text."""

import base64
import json
import os

import keras
import numpy as np
import pytest

from data.text.segments import stack_inputs
from data.text.tokenization import FullTokenizer
from export.export_meta import ExportMeta
from export.export_model import build_task_model
from tasks.question_answering.answers import PostprocessConfig, postprocess
from tasks.question_answering.features import convert_examples_to_features
from tasks.question_answering.squad_reader import SquadExample, read_squad_file, split_words
from tests.conftest import FIXTURES
from tests.export_harness import (HOSTILE_TEXTS, TINY_CONFIG, check_squad_listing,
                                  check_squad_warmup, export_squad_version, run_fresh)

SEQ_LENGTH, DOC_STRIDE, QUERY_LENGTH = 48, 16, 12  # several windows per context
SQUAD = {"max_query_length": QUERY_LENGTH, "n_best_size": 20, "max_answer_length": 30}

_LOADER = """
import base64, json
import numpy as np
import tensorflow as tf
import tensorflow_text  # noqa: F401

def strings(values):
    return tf.constant([base64.b64decode(t) for t in values])

report = {}
for version in ("v1", "v2"):
    model = tf.saved_model.load(ARGS[version])
    serve = model.signatures["serving_default"]
    report[version] = {"cli": saved_model_cli_show(ARGS[version])}
    for name in ("fixture", "hostile"):
        outputs = serve(question=strings(ARGS[f"{version}_{name}_questions"]),
                        context=strings(ARGS[f"{version}_{name}_contexts"]))
        report[version][name] = {k: [x.decode("utf-8") if isinstance(x, bytes) else x.item()
                                     for x in v.numpy()] for k, v in outputs.items()}
print(json.dumps(report))
"""


def _hostile_examples():
    """Every hostile string as a question about every other one, as contexts."""
    examples = []
    for i, context in enumerate(HOSTILE_TEXTS):
        words, _, starts = split_words(context)
        question = HOSTILE_TEXTS[(i + 4) % len(HOSTILE_TEXTS)]
        examples.append(SquadExample(f"hostile-{i}", question, context, tuple(words), tuple(starts)))
    return examples


@pytest.fixture(scope="module")
def served(tmp_path_factory, uncased_vocab_file):
    """v2.0 exported from a run's output_dir with the CLI path, v1.1 with
    `export_for_runner`; both a random model with wide logits. The v2.0 null
    threshold lies amid the fixture's null odds, so both outcomes occur."""
    tmp = tmp_path_factory.mktemp("squad")
    keras.utils.set_random_seed(17)
    config = TINY_CONFIG.replace(initializer_range=0.5)
    tokenizer = FullTokenizer(uncased_vocab_file, do_lower_case=True)
    exported, examples, models, thresholds = {}, {}, {}, {}
    for version in ("v1", "v2"):
        v2 = version == "v2"
        fixture = read_squad_file(os.path.join(FIXTURES, f"squad_{version}_tiny.json"), False,
                                  v2).examples
        examples[version] = {"fixture": fixture, "hostile": _hostile_examples()}
        meta = ExportMeta("squad", config, uncased_vocab_file, max_seq_length=SEQ_LENGTH,
                          doc_stride=DOC_STRIDE, squad={**SQUAD, "version_2_with_negative": v2,
                                                        "null_score_diff_threshold": 0.0})
        models[version] = build_task_model(meta)
        null_odds = (_python_predictions(models[version], fixture, tokenizer, True, 0.0)[0]
                     .null_odds.values() if v2 else None)
        exported[version], thresholds[version] = export_squad_version(models[version], meta, tmp,
                                                                      version, null_odds)
    args = dict(exported)
    for version, by_name in examples.items():
        for name, items in by_name.items():
            for field, key in (("question_text", "questions"), ("context", "contexts")):
                args[f"{version}_{name}_{key}"] = [
                    base64.b64encode(getattr(e, field).encode("utf-8")).decode() for e in items]
    report = json.loads(run_fresh(_LOADER, tmp, **args).strip().splitlines()[-1])
    return report, examples, models, tokenizer, thresholds, exported


def _python_predictions(model, examples, tokenizer, v2, threshold):
    features = convert_examples_to_features(examples, tokenizer, SEQ_LENGTH, DOC_STRIDE,
                                            QUERY_LENGTH, is_training=False)
    inputs = stack_inputs([f.inputs for f in features])
    outputs = model(inputs, training=False)
    results = {f.unique_id: (s, e) for f, s, e in zip(
        features, np.asarray(outputs["start_logits"]).tolist(),
        np.asarray(outputs["end_logits"]).tolist())}
    config = PostprocessConfig(SQUAD["n_best_size"], SQUAD["max_answer_length"], True, v2,
                               threshold)
    return postprocess(examples, features, results, config), len(features)


@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize("name", ["fixture", "hostile"])
def test_served_answers_equal_python_postprocessing(served, version, name):
    report, examples, models, tokenizer, thresholds, _ = served
    items = examples[version][name]
    predictions, num_windows = _python_predictions(models[version], items, tokenizer,
                                                   version == "v2", thresholds[version])
    if name == "fixture":
        assert num_windows > len(items)  # contexts longer than one window
    got = report[version][name]
    for i, example in enumerate(items):
        expected = predictions.predictions[example.qas_id]
        assert got["answer_text"][i] == expected, example.qas_id
        start, end = got["answer_start"][i], got["answer_end"][i]
        if expected:
            assert example.context[start:end] == expected
            entry = next(e for e in predictions.nbest[example.qas_id] if e["text"] == expected)
            assert got["probability"][i] == pytest.approx(entry["probability"], abs=1e-5)
            assert got["score"][i] == pytest.approx(entry["start_logit"] + entry["end_logit"],
                                                    abs=1e-4)
        else:
            assert (start, end) == (-1, -1)
        if version == "v2":
            assert got["null_odds"][i] == pytest.approx(predictions.null_odds[example.qas_id],
                                                        abs=1e-4)
            assert got["has_answer"][i] == bool(expected)
    if version == "v2" and name == "fixture":
        assert any(got["has_answer"]) and not all(got["has_answer"])  # both outcomes covered


def test_saved_model_cli_lists_the_outputs(served):
    check_squad_listing(served[0])


def test_warmup_requests_run(served):
    check_squad_warmup(served[-1]["v2"])
