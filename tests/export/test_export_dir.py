"""An export writes only where it may (`export/export_dir.py`): a new or empty
folder, an earlier export of its own (replaced), or a TF Serving base path
(the next version). A run's output_dir, a SavedModel of another program or any
other folder is refused naming what is there, and nothing in it is touched."""

import os
import sys
import types

import numpy as np
import pytest
import tensorflow as tf

from checkpoints.ours import save_weights
from export.export_dir import MARKER, ExportDirError
from export.export_generation import write_generation
from export.export_hub import write_hub_pair
from export.export_meta import ExportMeta, write_export_meta
from export.export_model import export_for_runner, fine_tune_and_export
from export.saved_model_io import save_atomically
from families.bert.encoder import dummy_inputs
from families.elmo.config import ELMoConfig
from families.elmo.encoder import ELMoEncoder
from families.elmo.hub_module import save_hub_module
from modeling.encoder_interface import build_encoder
from tasks.classification.model import SequenceClassifier
from tests import warm_python
from tests.conftest import ROOT
from tests.export_harness import TINY_CONFIG
from tests.families.gpt import kit as gpt_kit

RUN_FILES = ("checkpoint", "ckpt-1.data-00000-of-00001", "ckpt-1.index", "eval_results.txt",
             "export_meta.json")


class _Served(tf.Module):
    def __init__(self, scale=2.0):
        super().__init__()
        self.scale = tf.Variable(scale)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def serve(self, x):
        return {"y": self.scale * x}


def _export(path, scale=2.0):
    module = _Served(scale)
    return save_atomically(module, str(path), {"serving_default": module.serve})


def _served_scale(path):
    loaded = tf.saved_model.load(str(path))
    return float(loaded.serve(tf.constant([1.0]))["y"][0])


def _files(directory):
    """{relative path: bytes} of every file under `directory`."""
    found = {}
    for root, _, names in os.walk(directory):
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                found[os.path.relpath(path, directory)] = f.read()
    return found


def _fake_run(directory):
    os.makedirs(directory, exist_ok=True)
    for name in RUN_FILES:
        with open(os.path.join(directory, name), "w", encoding="utf-8") as f:
            f.write(name)
    return str(directory)


def test_a_run_output_dir_is_refused_naming_what_is_there(tmp_path):
    run = _fake_run(tmp_path / "run")
    before = _files(run)
    with pytest.raises(ExportDirError, match=rf"export directory {run} holds 5 entries \(checkpoint, "
                                             r"ckpt-1.data-00000-of-00001, ckpt-1.index, "
                                             r"eval_results.txt, export_meta.json\), not an export"):
        _export(run)
    assert _files(run) == before
    assert os.listdir(tmp_path) == ["run"]  # no staging folder left


def test_a_saved_model_another_program_wrote_is_refused(tmp_path):
    module = _Served()
    tf.saved_model.save(module, str(tmp_path / "theirs"))
    before = _files(tmp_path / "theirs")
    with pytest.raises(ExportDirError, match=f"without this project's export marker {MARKER}"):
        _export(tmp_path / "theirs")
    assert _files(tmp_path / "theirs") == before
    (tmp_path / "file").write_text("x")
    with pytest.raises(ExportDirError, match="is a file"):
        _export(tmp_path / "file")


def test_an_earlier_export_and_an_empty_folder_are_replaced(tmp_path):
    (tmp_path / "empty").mkdir()
    assert _export(tmp_path / "empty", 3.0) == str(tmp_path / "empty")
    assert _served_scale(tmp_path / "empty") == 3.0
    assert (tmp_path / "empty" / MARKER).is_file()
    _export(tmp_path / "empty", 5.0)
    assert _served_scale(tmp_path / "empty") == 5.0
    assert sorted(os.listdir(tmp_path)) == ["empty"]


@pytest.fixture(scope="module")
def classifier(uncased_vocab_file):
    """A tiny classifier and its export_meta."""
    model = SequenceClassifier(build_encoder(TINY_CONFIG), 2)
    model({k: np.asarray(v) for k, v in dummy_inputs(1, 16).items()}, training=False)
    return model, ExportMeta("classification", TINY_CONFIG, uncased_vocab_file, max_seq_length=16,
                             label_list=("a", "b"))


def test_a_tf_serving_base_path_gets_its_next_version(tmp_path, classifier):
    base = tmp_path / "models" / "mrpc"
    _export(base / "1")
    (base / "7").mkdir()  # a version some other program wrote: kept
    (base / "README").write_text("versions of mrpc\n")
    before = _files(base)
    assert export_for_runner(*classifier, str(base)) == str(base / "8")
    assert sorted(os.listdir(base)) == ["1", "7", "8", "README"]
    assert {k: v for k, v in _files(base).items() if not k.startswith("8/")} == before
    assert export_for_runner(*classifier, str(base / "8")) == str(base / "8")  # replaced
    assert sorted(os.listdir(base)) == ["1", "7", "8", "README"]
    loaded = tf.saved_model.load(str(base / "8"))
    assert loaded.signatures["serving_default"](text_a=tf.constant(["hello"]))["label_ids"].shape == [1]


def test_the_staging_folder_is_hidden_and_removed_after_a_failure(tmp_path):
    seen = []

    def fail(staging):
        seen.append(os.path.basename(staging))
        raise OSError("disk full")

    module = _Served()
    with pytest.raises(OSError, match="disk full"):
        save_atomically(module, str(tmp_path / "1"), {"serving_default": module.serve}, fail)
    assert seen[0].startswith(".1.") and seen[0].endswith(".tmp")
    assert os.listdir(tmp_path) == []


def _gpt_run(directory):
    """A GPT pretraining output_dir: its weights and config, and a checkpoint's files."""
    config = gpt_kit.tiny_config()
    save_weights(build_encoder(config), str(directory))
    return config, _fake_run(directory)


def test_generation_export_refuses_the_run_it_exports_from(tmp_path):
    config, run = _gpt_run(tmp_path / "gptA")
    before = _files(run)
    with pytest.raises(ExportDirError, match=rf"export directory {run} is {run}, the weights being "
                                             "exported: nothing written or deleted"):
        write_generation(run, config, gpt_kit.ENCODER_FILE, True, run)
    assert _files(run) == before
    with pytest.raises(ExportDirError, match=rf"export directory {run} holds 7 entries .* not an "
                                             "export"):
        write_generation(run, config, gpt_kit.ENCODER_FILE, True, str(tmp_path / "elsewhere"))
    assert _files(run) == before
    with pytest.raises(ExportDirError, match=rf"holds {run}/weights, the weights being exported"):
        write_generation(str(tmp_path), config, gpt_kit.ENCODER_FILE, True, f"{run}/weights")


def test_the_hub_export_refuses_a_folder_of_other_files(tmp_path, uncased_vocab_file):
    run = _fake_run(tmp_path / "run")
    before = _files(run)
    with pytest.raises(ExportDirError, match=rf"export directory {run} holds 5 entries .* not only "
                                             "the exports preprocessor, encoder"):
        write_hub_pair(run, TINY_CONFIG, uncased_vocab_file, True, "no-checkpoint")
    assert _files(run) == before


def test_the_elmo_module_writer_refuses_a_folder_of_other_files(tmp_path):
    run = _fake_run(tmp_path / "run")
    before = _files(run)
    with pytest.raises(ExportDirError, match=rf"export directory {run} holds 5 entries"):
        save_hub_module(run, ELMoEncoder(ELMoConfig.from_preset("elmo_tiny")))
    assert _files(run) == before


def test_a_runner_refuses_an_export_dir_holding_its_output_dir_before_training(tmp_path):
    options = types.SimpleNamespace(output_dir=str(tmp_path / "run"))
    with pytest.raises(ExportDirError, match=rf"export directory {tmp_path} holds {tmp_path}/run, "):
        fine_tune_and_export("a task never built", options, "never read", str(tmp_path))


def test_export_model_into_its_own_output_dir_is_one_error_line(tmp_path, classifier):
    """`python -m export.export_model --output_dir=X --export_dir=X`: the
    fine-tuned run is kept."""
    run = str(tmp_path / "run")
    model, meta = classifier
    save_weights(model, run)
    write_export_meta(run, meta)
    before = _files(run)
    done = warm_python.run(
        [sys.executable, "-m", "export.export_model", f"--output_dir={run}", f"--export_dir={run}"],
        cwd=ROOT, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""},
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stderr.strip().splitlines()[-1] == (f"error: export directory {run} is {run}, the weights "
                                                     "being exported: nothing written or deleted; export "
                                                     "to another folder")
    assert "Traceback" not in done.stderr
    assert _files(run) == before

