"""GPT's similarity transformation (Radford et al. 2018, section 3.3): for STS-B,
MRPC and QQP each pair is encoded as `A _delimiter_ B` and as `B _delimiter_ A`,
the two final states summed before the linear head, in training, evaluation
and the classifier SavedModel. Checked here against a restatement from the
encoder's own pooled vectors in NumPy and for order independence; the runner,
its export and the SavedModel served in a fresh process (symmetric in its two
texts) are the every-family suite's classification run, a similarity pair task
(tests/families/test_every_family.py)."""

import os

import keras
import numpy as np
import pytest
import tensorflow as tf

from families.bert.text_side import WordPieceText
from families.gpt.text_side import GPTText
from tasks.classification.glue_readers import GLUE_TASKS, GlueReader
from tasks.classification.task import ClassificationConfig, ClassificationTask
from tests.families.gpt import kit

SEQ_LENGTH = 24
PAIRS = [("A man is playing a guitar.", "A man plays the guitar.", "4.2"),
         ("The cat sleeps.", "A dog runs in the park after a red ball.", "0.4"),
         ("Two kids eat.", "Children are eating lunch together at school today.", "3.6"),
         ("Stocks fell sharply on Monday as investors worried about rates.", "Markets dropped.", "3.1")]
HEADER = "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore"


def write_stsb(directory):
    """A tiny STS-B in its GLUE layout (text columns 7 and 8, score 9)."""
    os.makedirs(directory, exist_ok=True)
    rows = [f"{i}\tg\tf\ty\t{i}\ts1\ts2\t{a}\t{b}\t{score}" for i, (a, b, score) in enumerate(PAIRS)]
    for split in ("train", "dev"):
        with open(os.path.join(directory, f"{split}.tsv"), "w", encoding="utf-8") as f:
            f.write("\n".join([HEADER] + rows) + "\n")
    return directory


def float32_bound(model, values):
    """The same float32 computation in another batch position or summation
    order: each of the L blocks sums at most n products per value (n: the
    widest kernel's fan-in), a rounding of eps each, on values of the
    outputs' scale; the head adds one more sum of `hidden` products."""
    config = model.encoder.config
    fan_in = max(int(np.prod(w.shape[:-1])) for w in model.weights if w.path.endswith("kernel"))
    scale = max(1.0, float(np.abs(values).max()))
    return (config.n_layer + 1) * fan_in * float(np.finfo(np.float32).eps) * scale


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("stsb")
    keras.utils.set_random_seed(5)
    config = kit.tiny_config().replace(initializer_range=0.2)
    return ClassificationTask(ClassificationConfig(
        GlueReader("STS-B", write_stsb(str(tmp / "STS-B"))), kit.ENCODER_FILE, config,
        cache_dir=str(tmp / "cache"), max_seq_length=SEQ_LENGTH))


@pytest.fixture(scope="module")
def model(task):
    keras.utils.set_random_seed(6)
    return task.build_model()


def test_the_paper_s_similarity_tasks_are_the_ones_read_in_both_orders():
    assert {name for name, t in GLUE_TASKS.items() if t.similarity} == {"sts-b", "mrpc", "qqp"}
    assert GPTText.similarity_in_both_orders and not WordPieceText.similarity_in_both_orders


def test_other_pair_tasks_keep_one_order(tmp_path):
    rte = ClassificationTask(ClassificationConfig(
        GlueReader("RTE", str(tmp_path)), kit.ENCODER_FILE, kit.tiny_config(), str(tmp_path)))
    assert not rte.both_orders and not rte.build_model().both_orders


def test_training_and_evaluation_read_each_pair_in_both_orders(task):
    assert task.both_orders
    text = task.text_side
    for split, training in (("train", True), ("dev", False)):
        features, labels = next(iter(task.build_dataset(split, len(PAIRS), training=training)))
        assert set(features) == {"input_word_ids", "input_mask"}
        ids = features["input_word_ids"].numpy()
        assert ids.shape[:2] == (len(PAIRS), 2)
        width = ids.shape[-1]
        for row, index in zip(ids, labels["example_index"].numpy()):
            a, b, _ = PAIRS[index]
            ab = text.pack(text.encode(a), text.encode(b), SEQ_LENGTH)["input_word_ids"]
            ba = text.pack(text.encode(b), text.encode(a), SEQ_LENGTH)["input_word_ids"]
            np.testing.assert_array_equal(row, np.stack([ab, ba])[:, :width])


def test_logits_are_the_head_on_the_sum_of_the_two_pooled_vectors(task, model):
    """The restatement: the encoder run on each order alone, the pooled vectors
    added in NumPy, the dense head's kernel and bias applied in NumPy."""
    text = task.text_side
    orders = [text.encode_texts([a for a, _, _ in PAIRS], [b for _, b, _ in PAIRS], SEQ_LENGTH),
              text.encode_texts([b for _, b, _ in PAIRS], [a for a, _, _ in PAIRS], SEQ_LENGTH)]
    pooled = [model.encoder(order, training=False)["pooled_output"].numpy() for order in orders]
    head = model.get_layer("classifier").dense
    kernel, bias = (np.asarray(w, np.float64) for w in (head.kernel.numpy(), head.bias.numpy()))
    expected = (pooled[0].astype(np.float64) + pooled[1]) @ kernel + bias
    both = {name: np.stack([orders[0][name], orders[1][name]], axis=1) for name in orders[0]}
    got = model(both, training=False)["logits"].numpy()
    swapped = model({k: v[:, ::-1] for k, v in both.items()}, training=False)["logits"].numpy()
    bound = float32_bound(model, pooled[0])
    np.testing.assert_allclose(got, expected, rtol=0, atol=bound)
    np.testing.assert_allclose(swapped, got, rtol=0, atol=bound)
    # The two orders differ (the sum is not one order counted twice).
    assert np.abs(pooled[0] - pooled[1]).max() > 100 * bound


def test_the_training_loss_adds_the_mean_language_model_loss_of_both_orders(task, model):
    features, labels = next(iter(task.build_dataset("dev", len(PAIRS), training=False)))
    outputs = model(features, training=False)
    flat = {k: tf.reshape(v, [-1, v.shape[-1]]) for k, v in features.items()}
    encoded = model.encoder(flat, training=False)
    per_order = model.encoder.auxiliary_loss(flat, encoded).numpy().reshape(-1, 2)
    expected = per_order.mean(axis=1) * model.encoder.config.lm_coef
    np.testing.assert_allclose(outputs["auxiliary_loss"].numpy(), expected, rtol=1e-5)
    np.testing.assert_allclose(task.training_loss(labels, outputs).numpy(),
                               task.loss(labels, outputs).numpy() + expected, rtol=1e-5)
