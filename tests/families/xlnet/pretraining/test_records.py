"""XLNet records against the original `data_utils.py` (as shipped in the Model
Garden's `official.legacy.xlnet.preprocess_pretrain_data`): with generators
seeded like its global ones, the same targets and the same records."""

import random
import types

import numpy as np
import pytest

from families.xlnet.pretraining import features as X
from data.pretraining.record_statistics import read_examples
from families.xlnet.pretraining.chunks import XLNetChunkProcessor
from families.xlnet.pretraining.config import XLNetDataConfig
from families.xlnet.pretraining.records import records
from families.xlnet.pretraining.spans import sample_mask, start_piece_table
from tests.families.xlnet.corpus import build_spiece, write_corpus

original = pytest.importorskip("official.legacy.xlnet.preprocess_pretrain_data")


@pytest.fixture(scope="module")
def spiece(tmp_path_factory):
    return build_spiece(tmp_path_factory.mktemp("xlnet_spm"))


@pytest.fixture(scope="module")
def stream(spiece, tmp_path_factory):
    """(ids, sentence ids) of a 40-document corpus, as the writer builds them."""
    corpus = write_corpus(tmp_path_factory.mktemp("xlnet_corpus") / "corpus.txt", 40)
    documents, document = [], []
    for line in open(corpus, encoding="utf-8").read().splitlines() + [""]:
        if line:
            document.append(line)
        elif document:
            documents.append(document)
            document = []
    processor = XLNetChunkProcessor(XLNetDataConfig(), spiece, uncased=False)
    return processor.stream(documents, {"documents": 0, "corpus_tokens": 0, "lines_without_tokens": 0})


def _original_flags(monkeypatch, config):
    """The original's flags; its int64 writer made to take NumPy bools (newer protobuf refuses them)."""
    import tensorflow as tf
    monkeypatch.setattr(original, "_int64_feature", lambda values: tf.train.Feature(
        int64_list=tf.train.Int64List(value=[int(v) for v in values])))
    monkeypatch.setattr(original, "FLAGS", types.SimpleNamespace(
        num_core_per_host=config.num_core_per_host, reuse_len=config.reuse_len, mask_alpha=config.mask_alpha,
        mask_beta=config.mask_beta, uncased=False, num_predict=config.num_predict))


@pytest.mark.parametrize("mask_alpha,mask_beta,goal,reverse", [(6, 1, 10, False), (6, 1, 10, True),
                                                                 (4, 2, 25, False), (3, 1, 1, True)])
def test_sample_mask_equals_the_original(spiece, stream, monkeypatch, mask_alpha, mask_beta, goal, reverse):
    _original_flags(monkeypatch, XLNetDataConfig(mask_alpha=mask_alpha, mask_beta=mask_beta))
    sp = XLNetChunkProcessor(XLNetDataConfig(), spiece, uncased=False).tokenizer.sp
    starts = start_piece_table(sp)
    ids = stream[0]
    for seed in range(20):
        segment = ids[seed * 7: seed * 7 + 60]
        np.random.seed(seed)
        expected = original._sample_mask(sp, segment, reverse=reverse, goal_num_predict=goal)
        ours = sample_mask(starts[segment], goal, mask_alpha, mask_beta, np.random.RandomState(seed), reverse)
        np.testing.assert_array_equal(ours, expected)
        assert ours.sum() == goal


@pytest.mark.parametrize("bi_data,num_core_per_host", [(False, 1), (True, 1), (True, 2)])
def test_records_equal_the_original(spiece, stream, monkeypatch, tmp_path, bi_data, num_core_per_host):
    config = XLNetDataConfig(seq_len=32, reuse_len=16, bsz_per_host=4, bi_data=bi_data, num_predict=6,
                             num_core_per_host=num_core_per_host)
    _original_flags(monkeypatch, config)
    sp = XLNetChunkProcessor(config, spiece, uncased=False).tokenizer.sp
    data, sent_ids = stream
    random.seed(7)
    np.random.seed(8)
    path, num_batch = original.create_tfrecords(str(tmp_path), "orig", [data, sent_ids], 4, 32, bi_data, sp)
    expected = read_examples([path])
    ours = records(data, sent_ids, config, start_piece_table(sp), random.Random(7), np.random.RandomState(8))
    assert num_batch > 5 and len(ours[X.INPUT]) == 4 * num_batch
    for name in X.feature_layout(config.seq_len):
        np.testing.assert_array_equal(ours[name], expected[name], err_msg=name)


def test_rows_continue_across_batches(spiece, stream):
    """Record k of a batch starts where the reuse part of record k of the batch
    before ended, and with bi_data the second half are the first half reversed."""
    config = XLNetDataConfig(seq_len=32, reuse_len=16, bsz_per_host=4, bi_data=True, num_predict=6)
    sp = XLNetChunkProcessor(config, spiece, uncased=False).tokenizer.sp
    out = records(*stream, config, start_piece_table(sp), random.Random(0), np.random.RandomState(0))
    inputs = out[X.INPUT].reshape(-1, 4, 32)
    data = stream[0]
    row = len(data) // 2
    for batch in range(len(inputs)):
        np.testing.assert_array_equal(inputs[batch, 0, :16], data[batch * 16: batch * 16 + 16])
        np.testing.assert_array_equal(inputs[batch, 2, :16], data[:2 * row][::-1][row:][batch * 16: batch * 16 + 16])
    assert (out[X.IS_MASKED].sum(axis=1) == 6).all()
