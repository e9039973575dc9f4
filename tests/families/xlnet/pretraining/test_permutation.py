"""Permutations drawn in tf.data against the original XLNet input pipeline
(`official.legacy.xlnet.preprocess_pretrain_data.get_dataset`, which also
parses our records): for the same factorisation orders, the same
`perm_mask`, `target_mapping`, targets and inputs; and orders that change
every epoch."""

import shutil

import numpy as np
import pytest
import tensorflow as tf

from data.pretraining.dataset import RecordLayoutError
from data.pretraining.writer import write_pretraining_data
from families.xlnet.pretraining.chunks import XLNetChunkProcessor
from families.xlnet.pretraining.config import XLNetDataConfig
from families.xlnet.pretraining.dataset import xlnet_pretraining_dataset
from families.xlnet.pretraining.permutation import Permuter, factorization_order
from tests.families.xlnet.corpus import build_spiece, write_corpus

original = pytest.importorskip("official.legacy.xlnet.preprocess_pretrain_data")

SEQ_LEN, REUSE_LEN, PERM_SIZE, NUM_PREDICT, SEED = 32, 16, 8, 6, 5


@pytest.fixture(scope="module")
def record_file(tmp_path_factory):
    d = tmp_path_factory.mktemp("xlnet_permutation")
    config = XLNetDataConfig(seq_len=SEQ_LEN, reuse_len=REUSE_LEN, bsz_per_host=4, num_predict=NUM_PREDICT)
    path = str(d / "records.tfrecord")
    write_pretraining_data(write_corpus(d / "corpus.txt", 40), [path], build_spiece(d), config,
                           processor_class=XLNetChunkProcessor, log_every_seconds=1e9)
    return path


def _ours(path, count, **kwargs):
    dataset = xlnet_pretraining_dataset(path, 1, SEQ_LEN, REUSE_LEN, PERM_SIZE, NUM_PREDICT, seed=SEED, **kwargs)
    return [{k: v[0].numpy() for k, v in batch.items()} for batch in dataset.take(count)]


def _shuffles(record_index):
    """The in-block orders our pipeline drew for a record's two parts."""
    seed = tf.constant([SEED, record_index], tf.int64)
    return [factorization_order(length, PERM_SIZE, tf.random.experimental.stateless_fold_in(seed, part))[:PERM_SIZE]
            for part, length in enumerate((REUSE_LEN, SEQ_LEN - REUSE_LEN))]


def _original(path, record_index, monkeypatch):
    """The original pipeline's features of one record, its shuffles made ours."""
    import tf_keras
    shuffles = iter(_shuffles(record_index))
    monkeypatch.setattr(original.tf, "random_shuffle", lambda t: tf.gather(t, next(shuffles)))
    monkeypatch.setattr(original, "tf_keras", tf_keras, raising=False)  # a missing import there
    dataset = original.get_dataset(
        params={"batch_size": 1}, num_hosts=1, num_core_per_host=1, split="train", file_names=[path],
        num_batch=None, seq_len=SEQ_LEN, reuse_len=REUSE_LEN, perm_size=PERM_SIZE, mask_alpha=None,
        mask_beta=None, num_predict=NUM_PREDICT)
    return {k: v[0].numpy() for k, v in next(iter(dataset.skip(record_index))).items()}


def test_features_equal_the_original_for_the_same_orders(record_file, monkeypatch):
    ours = _ours(record_file, 4)
    for index in range(4):
        expected = _original(record_file, index, monkeypatch)
        assert expected["target_mask"].sum() > 0
        for name in ("perm_mask", "target_mapping", "target", "target_mask", "input_k", "input_q",
                     "seg_id", "label"):
            np.testing.assert_array_equal(ours[index][name], expected[name], err_msg=f"{name} of record {index}")


def test_targets_see_earlier_targets_and_context_only(record_file):
    for features in _ours(record_file, 8):
        perm_mask, targets = features["perm_mask"], features["input_q"] > 0
        assert (np.diag(perm_mask)[targets] == 1).all()  # a target does not see itself
        context = ~targets & ~np.isin(features["input_k"], [3, 4])
        assert (perm_mask[:, context][REUSE_LEN:] == 0).all()  # the rest sees all context
        for part in (slice(0, REUSE_LEN), slice(REUSE_LEN, SEQ_LEN)):  # context sees no target of its part
            block = perm_mask[part, part]
            assert (block[np.ix_(context[part], targets[part])] == 1).all()
        assert (perm_mask[:REUSE_LEN, REUSE_LEN:] == 1).all()  # the reuse part does not see the rest
        # Among targets of one part, "i sees j" is a strict order: a chain, no cycle.
        rest = np.flatnonzero(targets[REUSE_LEN:]) + REUSE_LEN
        sees = perm_mask[np.ix_(rest, rest)] == 0
        assert sorted(sees.sum(axis=1).tolist()) == list(range(len(rest)))
        mapped = features["target_mapping"].argmax(axis=1)[features["target_mask"] > 0]
        np.testing.assert_array_equal(mapped, np.flatnonzero(targets)[:NUM_PREDICT])
        np.testing.assert_array_equal(features["target"][features["target_mask"] > 0], features["input_k"][mapped])


def test_new_orders_every_epoch_and_the_same_for_a_seed(record_file):
    records = sum(1 for _ in tf.data.TFRecordDataset(record_file))
    two_epochs = _ours(record_file, 2 * records, repeat=True)
    again = _ours(record_file, records)
    changed = 0
    for first, second, same in zip(two_epochs[:records], two_epochs[records:], again):
        np.testing.assert_array_equal(first["input_k"], second["input_k"])
        np.testing.assert_array_equal(first["perm_mask"], same["perm_mask"])
        changed += not np.array_equal(first["perm_mask"], second["perm_mask"])
    assert changed >= records // 2


def test_perm_size_must_divide_the_parts():
    with pytest.raises(ValueError, match="perm_size 5 must divide"):
        Permuter(SEQ_LEN, REUSE_LEN, 5, NUM_PREDICT)


def test_other_records_are_refused_naming_file_and_flag(record_file, tmp_path):
    with pytest.raises(RecordLayoutError, match=r"--seq_len=64 but .*records\.tfrecord was written with seq_len=32"):
        xlnet_pretraining_dataset(record_file, 1, 64, 32, 8, NUM_PREDICT)
    copy = tmp_path / "copy.tfrecord"  # without the metadata: the first record tells
    shutil.copy(record_file, copy)
    with pytest.raises(RecordLayoutError, match=r"copy\.tfrecord: feature 'input' has 32 .* \(--seq_len=64\)"):
        xlnet_pretraining_dataset(str(copy), 1, 64, 32, 8, NUM_PREDICT)
    bert = tmp_path / "bert.tfrecord"
    with tf.io.TFRecordWriter(str(bert)) as writer:
        writer.write(tf.train.Example(features=tf.train.Features(feature={"input_ids": tf.train.Feature(
            int64_list=tf.train.Int64List(value=[1] * 32))})).SerializeToString())
    with pytest.raises(RecordLayoutError, match="bert.tfrecord: feature 'input' is missing"):
        xlnet_pretraining_dataset(str(bert), 1, SEQ_LEN, REUSE_LEN, PERM_SIZE, NUM_PREDICT)
