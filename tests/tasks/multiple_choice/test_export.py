"""The multiple-choice SavedModel in a fresh tensorflow + tensorflow_text
process: probabilities equal the in-process model's on training packing
(`tasks.multiple_choice.features`), on real and hostile text."""

import base64
import json

import keras
import numpy as np
import pytest

from data.text.tokenization import FullTokenizer
from export.export_meta import ExportMeta
from export.export_model import build_task_model, export_for_runner
from tasks.multiple_choice.features import encode_example
from tests.export_harness import (HOSTILE_TEXTS, TINY_CONFIG, check_warmup_requests, run_fresh,
                                  sentences)

SEQ_LENGTH, CHOICES = 32, 4

_LOADER = """
import base64, json
import numpy as np
import tensorflow as tf
import tensorflow_text  # noqa: F401

def strings(values):
    return tf.constant([[base64.b64decode(t) for t in row] for row in values])

model = tf.saved_model.load(ARGS["export_dir"])
serve = model.signatures["serving_default"]
report = {"cli": saved_model_cli_show(ARGS["export_dir"])}
for name in ("real", "hostile"):
    outputs = serve(context=strings([ARGS[name + "_contexts"]])[0],
                    endings=strings(ARGS[name + "_endings"]))
    report[name] = {k: v.numpy().tolist() for k, v in outputs.items()}
print(json.dumps(report))
"""


class _Example:
    """What `encode_example` reads of a multiple-choice example."""

    def __init__(self, context, endings):
        self.context, self.endings = context, endings

    def choice_texts(self):
        return [(self.context, ending) for ending in self.endings]


def _cases(texts):
    contexts = texts[:len(texts) // CHOICES]
    endings = [[texts[(i * CHOICES + j + 1) % len(texts)] for j in range(CHOICES)]
               for i in range(len(contexts))]
    return contexts, endings


@pytest.fixture(scope="module")
def served(tmp_path_factory, uncased_vocab_file):
    tmp = tmp_path_factory.mktemp("choice")
    keras.utils.set_random_seed(13)
    meta = ExportMeta("multiple_choice", TINY_CONFIG, uncased_vocab_file, max_seq_length=SEQ_LENGTH)
    model = build_task_model(meta)
    export_dir = export_for_runner(model, meta, str(tmp / "swag" / "1"))
    cases = {"real": _cases(sentences()), "hostile": _cases(HOSTILE_TEXTS * 2)}
    args = {}
    for name, (contexts, endings) in cases.items():
        args[name + "_contexts"] = [base64.b64encode(c.encode()).decode() for c in contexts]
        args[name + "_endings"] = [[base64.b64encode(e.encode()).decode() for e in row]
                                   for row in endings]
    report = json.loads(run_fresh(_LOADER, tmp, export_dir=export_dir, **args)
                        .strip().splitlines()[-1])
    return report, cases, model, FullTokenizer(uncased_vocab_file, do_lower_case=True), export_dir


@pytest.mark.parametrize("name", ["real", "hostile"])
def test_probabilities_equal_in_process_model(served, name):
    report, cases, model, tokenizer, _ = served
    contexts, endings = cases[name]
    rows = [encode_example(tokenizer, _Example(c, e), SEQ_LENGTH)[0] for c, e in zip(contexts, endings)]
    inputs = {key: np.stack([r[key] for r in rows]) for key in rows[0]}
    logits = np.asarray(model(inputs, training=False)["logits"], np.float64)
    expected = np.exp(logits - logits.max(-1, keepdims=True))
    expected /= expected.sum(-1, keepdims=True)
    got = np.array(report[name]["probabilities"])
    assert got.shape == (len(contexts), CHOICES)
    np.testing.assert_allclose(got, expected, atol=1e-5)
    assert report[name]["label_ids"] == expected.argmax(-1).tolist()


def test_saved_model_cli_lists_the_signature(served):
    shown = served[0]["cli"]
    assert "signature_def['serving_default']" in shown
    for name in ("context", "endings", "probabilities", "label_ids"):
        assert f"['{name}']" in shown, name


def test_warmup_requests_run(served):
    check_warmup_requests(served[-1], {"serving_default": ("probabilities", "label_ids")})
