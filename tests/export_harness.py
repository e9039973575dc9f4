"""Shared pieces of the export tests: a fresh interpreter that sees no project
code, the hostile strings every text signature must survive, real sentences."""

import dataclasses
import json
import os
import shutil
import sys
import textwrap

import keras
import tensorflow as tf

from checkpoints.loader import load_into
from checkpoints.ours import save_weights
from export.export_hub import export_hub
from export.export_meta import read_export_meta, write_export_meta
from export.export_model import export_for_runner, export_model
from export.hub_encoder import build_hub_model
from export.warmup import read_warmup_requests
from families.bert.config import BertConfig
from tests import warm_python
from tests.conftest import FIXTURES, ROOT

# A wider initialisation than BERT's 0.02 gives a random encoder features that
# differ between sentences, so a few fine-tuning steps measurably lower a loss.
TINY_CONFIG = BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                         intermediate_size=64, initializer_range=0.2)

HOSTILE_TEXTS = [
    "",
    " \t\n\r\u3000 ",
    "lorem ipsum " * 1666 + "end.",  # 20,000 characters of words
    "x" * 20000,  # one 20,000-character word
    "東京は日本の首都です。北京是中国的首都。",
    "Emoji 👍🏽 🇯🇵 😀!",
    "Cafe\u0301 nai\u0308ve a\u0308\u0301\u0323 \u0301",
    "\x00\x01\x1f\x7f\u200b\ufeff control\u0085 chars\u2028",
    "Mixed: 東京 😀 e\u0301 \x00 end",
]

# Prepended to every fresh-process script: proves the project is out of reach.
_NO_PROJECT_CODE = f"""
import importlib.util, os, sys
_ROOT = {ROOT!r}
assert all(os.path.abspath(p or ".") != _ROOT for p in sys.path), sys.path
for _name in ("contracts", "modeling", "export", "checkpoints", "data", "tasks", "training", "families"):
    _spec = importlib.util.find_spec(_name)
    _where = _spec and (_spec.origin or next(iter(_spec.submodule_search_locations or []), ""))
    assert not (_where or "").startswith(_ROOT), _name
"""


def sentences():
    with open(os.path.join(FIXTURES, "sentences.txt"), encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip()]


def export_tiny_hub(tmp, vocab_file, seed=3):
    """A tiny random BERT saved as our checkpoint (config and vocab beside it),
    exported with `export_hub`; also the same model reloaded in process."""
    keras.utils.set_random_seed(seed)
    checkpoint = os.path.join(tmp, "checkpoint")
    pretrainer, _ = build_hub_model(TINY_CONFIG)
    save_weights(pretrainer, checkpoint)
    shutil.copyfile(vocab_file, os.path.join(checkpoint, "vocab.txt"))
    preprocessor_dir, encoder_dir = export_hub(os.path.join(tmp, "hub"), checkpoint)
    reloaded, _ = build_hub_model(TINY_CONFIG)
    load_into(reloaded, checkpoint, strict=True)
    return {"tmp": tmp, "preprocessor": preprocessor_dir, "encoder": encoder_dir,
            "pretrainer": reloaded, "vocab_file": vocab_file}


def check_warmup_requests(export_dir, signature_outputs):
    """The SavedModel's TF Serving warmup file holds a request for every
    signature in `signature_outputs` {name: output names}, and each runs."""
    requests = read_warmup_requests(export_dir)
    assert {name for name, _ in requests} == set(signature_outputs)
    model = tf.saved_model.load(export_dir)
    for name, inputs in requests:
        outputs = model.signatures[name](**{k: tf.constant(v) for k, v in inputs.items()})
        assert set(outputs) == set(signature_outputs[name]), name


def check_squad_listing(report):
    """`saved_model_cli show` of the v1.1 and v2.0 SQuAD SavedModels lists the signature's
    inputs and outputs, `has_answer` for v2.0 only."""
    for version in ("v1", "v2"):
        shown = report[version]["cli"]
        assert "signature_def['serving_default']" in shown
        for name in ("question", "context", "answer_text", "answer_start", "answer_end", "score",
                     "probability"):
            assert f"['{name}']" in shown, (version, name)
        assert ("['has_answer']" in shown) == (version == "v2")


def export_squad_version(model, meta, tmp, version, null_odds=None):
    """Exports a SQuAD model as the runner would: v2.0 (with the Python pipeline's
    `null_odds`) from a run's output_dir, its null threshold halfway between two
    middle odds so that both outcomes occur and none is a near-tie; v1.1 with
    `export_for_runner`. Returns the export dir and the threshold."""
    if null_odds is None:
        return export_for_runner(model, meta, str(tmp / version / "1")), 0.0
    odds = sorted(null_odds)
    threshold = (odds[len(odds) // 2 - 1] + odds[len(odds) // 2]) / 2
    meta = dataclasses.replace(meta, squad={**meta.squad, "null_score_diff_threshold": threshold})
    run_dir = str(tmp / "run")
    save_weights(model, run_dir)
    write_export_meta(run_dir, meta)
    return export_model(read_export_meta(run_dir), str(tmp / version / "1"), run_dir), threshold


def check_squad_warmup(export_dir):
    """The v2.0 SQuAD SavedModel's warmup requests run and give every output."""
    check_warmup_requests(export_dir, {"serving_default": (
        "answer_text", "answer_start", "answer_end", "score", "probability", "has_answer",
        "null_odds")})


def run_fresh(script, workdir, timeout=600, **values):
    """Runs `script` (read from stdin) in a new isolated interpreter (`python -I`:
    no PYTHONPATH, no script directory, no user site) with cwd `workdir`. `values` are
    JSON-encoded into the global `ARGS`. Returns the process's stdout."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
    arguments = f"ARGS = __import__('json').loads({json.dumps(json.dumps(values))})\n"
    source = _NO_PROJECT_CODE + SAVED_MODEL_CLI + arguments + textwrap.dedent(script)
    proc = warm_python.run([sys.executable, "-I", "-"], input=source, cwd=str(workdir), env=env,
                           capture_output=True, text=True, timeout=timeout)
    if proc.returncode:
        raise AssertionError(f"fresh process failed ({proc.returncode}):\n{proc.stderr[-6000:]}")
    return proc.stdout


# For fresh-process apps: data (`texts`, `labels`) and the before/after report of a
# few fit steps (`fit_report`).
FIT_REPORT = """
import json
import numpy as np
texts = np.array(ARGS["texts"], dtype=object)
labels = np.array(ARGS["labels"], dtype=np.int32)

def fit_report(model, encoder_weights, x):
    before = [w.numpy() for w in encoder_weights]
    loss_before = model.evaluate(x, labels, verbose=0)
    model.fit(x, labels, batch_size=len(labels), epochs=5, verbose=0)
    changed = sum(not np.array_equal(b, w.numpy()) for b, w in zip(before, encoder_weights))
    return {"losses": [loss_before, model.evaluate(x, labels, verbose=0)], "changed": changed,
            "trainable": len(encoder_weights)}
"""


# For fresh-process scripts: `saved_model_cli show --all` as its console script runs it.
SAVED_MODEL_CLI = """
def saved_model_cli_show(export_dir):
    import contextlib, io, sys
    from tensorflow.python.tools.saved_model_cli import main
    sys.argv, shown = ["saved_model_cli", "show", "--dir", export_dir, "--all"], io.StringIO()
    with contextlib.redirect_stdout(shown):
        try:
            main()
        except SystemExit as e:
            assert not e.code, e.code
    return shown.getvalue()
"""
