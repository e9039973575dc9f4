"""A second family through the classification task and its export: XLNet-tiny
with a SentencePiece model learned here. The task packs with XLNet's text side
(left padding, `<cls>` last), trims padding from the left, builds its model on
`XLNetEncoder`; export_meta.json records the family and copies `spiece.model`,
and the SavedModel serves raw text as the trained model scores Python's features."""

import json
import os

import numpy as np
import pytest
import tensorflow as tf

from export.export_meta import read_export_meta, write_export_meta
from export.export_model import export_model
from families.xlnet.config import XLNetConfig
from families.xlnet.encoder import XLNetEncoder
from tasks.classification.glue_readers import GlueReader
from tasks.classification.task import ClassificationConfig, ClassificationTask
from tests.conftest import FIXTURES
from tests.families.xlnet.spiece_model import learn_spiece_model

SEQ_LENGTH = 128  # the dev pairs pack to 102 and 98 pieces: some padding to trim
# The learned model has at most 120 pieces.
CONFIG = XLNetConfig.from_preset("xlnet_tiny").replace(n_token=128, dropout=0.0, dropatt=0.0)


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("xlnet_mrpc")
    return ClassificationTask(ClassificationConfig(
        GlueReader("MRPC", os.path.join(FIXTURES, "glue_mrpc")), learn_spiece_model(tmp), CONFIG,
        cache_dir=str(tmp), do_lower_case=False, max_seq_length=SEQ_LENGTH))


def test_features_are_xlnet_packed_and_trimmed_from_the_left(task):
    assert task.text_side.family == "xlnet"
    features, labels = next(iter(task.build_dataset("dev", 8, training=False)))
    examples = task.split_data("dev").examples
    expected = task.text_side.encode_texts([e.text_a for e in examples],
                                           [e.text_b for e in examples], SEQ_LENGTH)
    order = labels["example_index"].numpy()  # evaluation batches go from short to long
    np.testing.assert_array_equal(np.sort(order), np.arange(len(examples)))
    width = features["input_mask"].shape[1]
    assert width == expected["input_mask"].sum(axis=1).max() < SEQ_LENGTH
    for name, value in expected.items():
        np.testing.assert_array_equal(features[name].numpy(), value[order, -width:], err_msg=name)
    assert (features["input_type_ids"].numpy()[:, -1] == 2).all()  # <cls> last


def test_exports_with_the_family_and_serves_its_text(task, tmp_path):
    model = task.build_model()
    assert isinstance(model.encoder, XLNetEncoder)
    run_dir = str(tmp_path / "run")
    write_export_meta(run_dir, task.export_meta())
    with open(os.path.join(run_dir, "export_meta.json")) as f:
        values = json.load(f)
    assert values["encoder_family"] == "xlnet" and "bert_config" not in values
    assert values["encoder_config"] == CONFIG.to_dict()
    assert os.path.isfile(os.path.join(run_dir, "spiece.model"))
    meta = read_export_meta(run_dir)
    assert meta.encoder_config == CONFIG and meta.text_side().family == "xlnet"

    loaded = tf.saved_model.load(export_model(meta, str(tmp_path / "serving" / "1"), model))
    examples = task.split_data("dev").examples
    texts_a, texts_b = [e.text_a for e in examples], [e.text_b for e in examples]
    served = loaded.signatures["serving_default"](text_a=tf.constant(texts_a),
                                                  text_b=tf.constant(texts_b))
    expected = tf.nn.softmax(model(task.text_side.encode_texts(texts_a, texts_b, SEQ_LENGTH))[
        "logits"]).numpy()
    # The same float32 computation on the same ids, up to op scheduling.
    np.testing.assert_allclose(served["probabilities"].numpy(), expected, rtol=1e-5, atol=1e-6)
