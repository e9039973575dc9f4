"""What users already hold keeps working: a serving SavedModel, a fine-tuning
output_dir (`export_meta.json` and its Keras task-model config) and an XLNet
pretraining checkpoint, all written by an earlier version
(`tests/fixtures/before_family_homes/README.md` says how)."""

import json
import os
import sys

import numpy as np
import tensorflow as tf

from export.export_meta import read_export_meta
from export.export_model import export_model
from tests import warm_python
from tests.conftest import FIXTURES, ROOT, read_json
from tests.export_harness import run_fresh

EARLIER = os.path.join(FIXTURES, "before_family_homes")
RECORDED = read_json(os.path.join(EARLIER, "bert_classifier_export_outputs.json"))
# float32 softmax of one tiny model on the same weights: rows differ by > 1e-5,
# another CPU's summation order by ~1e-7.
ATOL = 1e-6

_SERVE = """
import json
import tensorflow as tf
import tensorflow_text  # noqa: F401
model = tf.saved_model.load(ARGS["export"])
outputs = model.signatures["serving_default"](text_a=tf.constant(ARGS["sentences"]))
print(json.dumps(outputs["probabilities"].numpy().tolist()))
"""


def test_an_earlier_serving_savedmodel_answers_as_it_did(tmp_path):
    served = run_fresh(_SERVE, tmp_path, export=os.path.join(EARLIER, "bert_classifier_export"),
                       sentences=RECORDED["sentences"])
    np.testing.assert_allclose(json.loads(served.strip().splitlines()[-1]), RECORDED["probabilities"],
                               atol=ATOL)


def test_an_earlier_output_dir_exports_the_same_model(tmp_path):
    """Its `export_meta.json` and Keras class names rebuild the model; its
    trainer checkpoint fills it."""
    run_dir = os.path.join(EARLIER, "bert_classifier")
    export = export_model(read_export_meta(run_dir), str(tmp_path / "1"), run_dir)
    outputs = tf.saved_model.load(export).signatures["serving_default"](
        text_a=tf.constant(RECORDED["sentences"]))
    np.testing.assert_allclose(outputs["probabilities"].numpy(), RECORDED["probabilities"], atol=ATOL)


def test_an_earlier_xlnet_pretraining_checkpoint_starts_fine_tuning(tmp_path):
    """`--init_checkpoint=<pretraining output_dir>` finds the config and
    SentencePiece model beside the checkpoint and loads every encoder weight."""
    done = warm_python.run(
        [sys.executable, os.path.join(ROOT, "run_classifier.py"), "--task_name=sst-2",
         f"--data_dir={os.path.join(FIXTURES, 'glue_sst-2')}",
         f"--init_checkpoint={os.path.join(EARLIER, 'xlnet_pretraining')}", "--do_train",
         "--max_seq_length=16", "--train_batch_size=2", "--num_train_epochs=1",
         "--mixed_precision=none", f"--output_dir={tmp_path / 'run'}"],
        capture_output=True, text=True, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    assert "loaded " in done.stderr and "from trainer checkpoint" in done.stderr
