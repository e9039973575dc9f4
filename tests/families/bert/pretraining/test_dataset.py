"""The tf.data pretraining input: reading our and the original script's
TFRecords, determinism, layout errors, the TensorFlow masking and the
dynamic pipeline from raw text."""

import os
import random

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import FIXTURES

from data.pretraining import features as F
from families.bert.pretraining.chunks import ChunkProcessor
from families.bert.pretraining.config import MaskingOptions, PretrainingDataConfig
from data.pretraining.dataset import RecordLayoutError, pretraining_dataset
from families.bert.pretraining.text_dataset import text_pretraining_dataset
from families.bert.pretraining.tf_masking import DynamicMasker, mask_tokens, restore_original_ids
from data.pretraining.writer import write_pretraining_data
from data.text.tokenization import FullTokenizer
from data.text.vocab import Vocab

CORPUS = os.path.join(FIXTURES, "pretraining_corpus.txt")
CLS, SEP, MASK = 1, 2, 3


@pytest.fixture(scope="module")
def vocab(uncased_vocab_file):
    return Vocab.from_file(uncased_vocab_file)


def write_ours(path, vocab_file, **masking):
    config = PretrainingDataConfig(
        max_seq_length=128, dupe_factor=3, random_seed=5, masking=MaskingOptions(max_predictions_per_seq=20, **masking)
    )
    write_pretraining_data(CORPUS, [str(path)], vocab_file, config, log_every_seconds=1e9,
                           processor_class=ChunkProcessor)
    return str(path)


def write_original(path, vocab_file):
    from tests.references import original_full_tokenizer
    from bert import create_pretraining_data as original

    tokenizer = original_full_tokenizer(vocab_file, True)
    instances = original.create_training_instances([CORPUS], tokenizer, 128, 3, 0.1, 0.15, 20, random.Random(1))
    original.write_instance_to_example_files(instances, tokenizer, 128, 20, [str(path)])
    return str(path)


def collect(dataset, name=F.INPUT_IDS):
    return np.concatenate([batch[name].numpy() for batch in dataset])


def test_reads_our_records_and_the_originals(tmp_path, uncased_vocab_file):
    for path in (write_ours(tmp_path / "ours", uncased_vocab_file), write_original(tmp_path / "orig", uncased_vocab_file)):
        batch = next(iter(pretraining_dataset(path, batch_size=4)))
        assert {name: (tuple(t.shape), t.dtype) for name, t in batch.items()} == {
            F.INPUT_IDS: ((4, 128), tf.int32),
            F.INPUT_MASK: ((4, 128), tf.int32),
            F.SEGMENT_IDS: ((4, 128), tf.int32),
            F.MASKED_LM_POSITIONS: ((4, 20), tf.int32),
            F.MASKED_LM_IDS: ((4, 20), tf.int32),
            F.MASKED_LM_WEIGHTS: ((4, 20), tf.float32),
            F.NEXT_SENTENCE_LABELS: ((4, 1), tf.int32),
        }


def test_shuffling_is_deterministic_for_a_seed_and_repeat_continues(tmp_path, uncased_vocab_file):
    path = write_ours(tmp_path / "ours", uncased_vocab_file)
    in_order = collect(pretraining_dataset(path, 8, shuffle=False))
    first = collect(pretraining_dataset(path, 8, seed=1))
    assert np.array_equal(first, collect(pretraining_dataset(path, 8, seed=1)))
    assert not np.array_equal(first, collect(pretraining_dataset(path, 8, seed=2)))
    assert not np.array_equal(first, in_order)
    assert sorted(map(tuple, first)) == sorted(map(tuple, in_order))
    def three_epochs():
        return collect(pretraining_dataset(path, len(in_order), seed=1, repeat=True, shuffle_buffer=16).take(3))

    repeated = three_epochs()
    assert len(repeated) == 3 * len(in_order)
    assert set(map(tuple, repeated)) <= set(map(tuple, in_order))
    again = three_epochs()
    assert np.array_equal(repeated, again)


def write_example(path, drop=(), widths=None, as_int=()):
    widths = {F.INPUT_IDS: 128, F.INPUT_MASK: 128, F.SEGMENT_IDS: 128, F.MASKED_LM_POSITIONS: 20,
              F.MASKED_LM_IDS: 20, F.MASKED_LM_WEIGHTS: 20, F.NEXT_SENTENCE_LABELS: 1, **(widths or {})}
    features = {}
    for name, width in widths.items():
        if name in drop:
            continue
        if name == F.MASKED_LM_WEIGHTS and name not in as_int:
            features[name] = tf.train.Feature(float_list=tf.train.FloatList(value=[1.0] * width))
        else:
            features[name] = tf.train.Feature(int64_list=tf.train.Int64List(value=[1] * width))
    with tf.io.TFRecordWriter(str(path)) as writer:
        writer.write(tf.train.Example(features=tf.train.Features(feature=features)).SerializeToString())
    return str(path)


@pytest.mark.parametrize(
    "record, message",
    [
        (dict(drop=[F.MASKED_LM_WEIGHTS]), "'masked_lm_weights' is missing"),
        (dict(widths={F.INPUT_IDS: 64}), r"'input_ids' has 64 values, expected 128 \(--max_seq_length=128\)"),
        (dict(widths={F.MASKED_LM_IDS: 76}), r"'masked_lm_ids' has 76 values, expected 20 \(--max_predictions"),
        (dict(as_int=[F.MASKED_LM_WEIGHTS]), "'masked_lm_weights' is a int64_list, expected float_list"),
    ],
)
def test_a_record_of_another_layout_is_an_error_naming_the_feature(tmp_path, record, message):
    path = write_example(tmp_path / "bad.tfrecord", **record)
    with pytest.raises(RecordLayoutError, match=message) as error:
        pretraining_dataset(path, 2)
    assert "bad.tfrecord" in str(error.value)


def test_no_nsp_records_are_read_without_labels(tmp_path, uncased_vocab_file):
    config = PretrainingDataConfig(max_seq_length=64, dupe_factor=1, objective="mlm")
    write_pretraining_data(CORPUS, [str(tmp_path / "mlm")], uncased_vocab_file, config, log_every_seconds=1e9,
                           processor_class=ChunkProcessor)
    batch = next(iter(pretraining_dataset(str(tmp_path / "mlm"), 2, 64, next_sentence_labels=False)))
    assert F.NEXT_SENTENCE_LABELS not in batch
    with pytest.raises(RecordLayoutError, match="next_sentence_labels"):
        pretraining_dataset(str(tmp_path / "mlm"), 2, 64)


def token_batch(rows=3000, seq=32, seed=0):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(6, seq + 1, rows)
    ids = rng.integers(10, 200, (rows, seq))
    ids[:, 0] = CLS
    ids[np.arange(rows), lengths - 1] = SEP
    mask = (np.arange(seq) < lengths[:, None]).astype(np.int32)
    return (ids * mask).astype(np.int32), mask, lengths


def tf_mask(ids, mask, seed, **options):
    settings = dict(vocab_size=200, mask_id=MASK, special_ids=[CLS, SEP], max_predictions_per_seq=5)
    return {k: v.numpy() for k, v in mask_tokens(ids, mask, seed, **{**settings, **options}).items()}


def test_mask_tokens_follows_the_rule_on_token_ids():
    ids, mask, lengths = token_batch()
    out = tf_mask(ids, mask, [1, 2])
    chosen = out[F.MASKED_LM_WEIGHTS] > 0
    positions = out[F.MASKED_LM_POSITIONS]
    rows = np.arange(len(ids))[:, None]
    assert (chosen.sum(1) == np.clip(np.rint(lengths * 0.15), 1, 5)).all()
    assert not np.isin(ids[rows, positions][chosen], [0, CLS, SEP]).any()
    assert all((np.diff(p[c]) > 0).all() for p, c in zip(positions, chosen))
    np.testing.assert_array_equal(out[F.MASKED_LM_IDS][chosen], ids[rows, positions][chosen])
    shown = out[F.INPUT_IDS][rows, positions][chosen]
    assert (shown == MASK).mean() == pytest.approx(0.8, abs=0.02)
    assert (shown == ids[rows, positions][chosen]).mean() == pytest.approx(0.1, abs=0.02)
    restored = restore_original_ids({name: tf.constant(v) for name, v in out.items()})
    np.testing.assert_array_equal(restored.numpy(), ids)


def test_mask_tokens_is_deterministic_per_seed():
    ids, mask, _ = token_batch(rows=50)
    first = tf_mask(ids, mask, [3, 4])
    assert all(np.array_equal(first[k], v) for k, v in tf_mask(ids, mask, [3, 4]).items())
    assert not np.array_equal(first[F.MASKED_LM_POSITIONS], tf_mask(ids, mask, [3, 5])[F.MASKED_LM_POSITIONS])


def test_whole_word_masking_in_tensorflow_keeps_words_together():
    ids, mask, lengths = token_batch()
    continuation = np.arange(200) >= 100
    out = tf_mask(ids, mask, [1, 2], is_continuation=continuation)
    chosen = out[F.MASKED_LM_WEIGHTS] > 0
    assert (chosen.sum(1) <= np.clip(np.rint(lengths * 0.15), 1, 5)).all() and chosen.sum() > 0.9 * (
        np.clip(np.rint(lengths * 0.15), 1, 5).sum()
    )
    for row in range(len(ids)):
        masked = set(out[F.MASKED_LM_POSITIONS][row][chosen[row]].tolist())
        for p in range(2, lengths[row] - 1):
            if continuation[ids[row, p]] and ids[row, p - 1] not in (CLS, SEP):
                assert (p in masked) == (p - 1 in masked)


def test_dynamic_masking_of_records_changes_every_epoch(tmp_path, uncased_vocab_file, vocab):
    all_kept = write_ours(tmp_path / "kept", uncased_vocab_file, mask_token_rate=0.0, random_token_rate=0.0)
    masked = write_ours(tmp_path / "masked", uncased_vocab_file)
    original_ids = collect(pretraining_dataset(all_kept, 1000, shuffle=False))
    restored = np.concatenate(
        [restore_original_ids(b).numpy() for b in pretraining_dataset(masked, 1000, shuffle=False)]
    )
    np.testing.assert_array_equal(restored, original_ids)

    masker = DynamicMasker(vocab, MaskingOptions())
    count = len(original_ids)

    def epochs(seed):
        dataset = pretraining_dataset(masked, count, shuffle=False, repeat=True, seed=seed, dynamic_masker=masker)
        return [{k: v.numpy() for k, v in batch.items()} for batch in dataset.take(2)]

    first, second = epochs(1)
    assert not np.array_equal(first[F.MASKED_LM_POSITIONS], second[F.MASKED_LM_POSITIONS])
    for epoch in (first, second):
        np.testing.assert_array_equal(restore_original_ids(epoch).numpy(), original_ids)
    again = epochs(1)[0]
    assert all(np.array_equal(again[k], v) for k, v in first.items())


class WordLookupTokenizer:
    """Lower-cased whitespace words looked up whole: a quick in-graph stand-in
    with the GraphTokenizer's output structure, for tests of the pipeline."""

    def __init__(self, vocab):
        self.table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(vocab.tokens, tf.range(len(vocab), dtype=tf.int32)), vocab.unk_id
        )

    def tokenize(self, texts):
        words = tf.strings.split(tf.strings.lower(texts))
        ids = self.table.lookup(words.flat_values)
        return tf.RaggedTensor.from_nested_row_lengths(ids, [words.row_lengths(), tf.ones_like(ids, tf.int64)])


def text_batches(vocab, config, epochs=1, tokenizer=None, batch_size=64):
    dataset = text_pretraining_dataset(
        CORPUS, vocab, batch_size, config, tokenizer=tokenizer or WordLookupTokenizer(vocab),
        lines_per_chunk=64, repeat=epochs > 1, shuffle_buffer=32,
    )
    return [{k: v.numpy() for k, v in batch.items()} for batch in dataset.take(epochs)]


def test_text_pipeline_gives_the_record_readers_features(vocab):
    config = PretrainingDataConfig(max_seq_length=64, random_seed=3)
    batch = text_batches(vocab, config)[0]
    assert {k: (v.shape[1], v.dtype) for k, v in batch.items()} == {
        F.INPUT_IDS: (64, np.int32),
        F.INPUT_MASK: (64, np.int32),
        F.SEGMENT_IDS: (64, np.int32),
        F.MASKED_LM_POSITIONS: (20, np.int32),
        F.MASKED_LM_IDS: (20, np.int32),
        F.MASKED_LM_WEIGHTS: (20, np.float32),
        F.NEXT_SENTENCE_LABELS: (1, np.int32),
    }
    lengths = batch[F.INPUT_MASK].sum(1)
    assert (batch[F.MASKED_LM_WEIGHTS].sum(1) == np.clip(np.rint(lengths * 0.15), 1, 20)).all()
    assert set(np.unique(batch[F.NEXT_SENTENCE_LABELS])) == {0, 1}
    assert (batch[F.INPUT_IDS][:, 0] == vocab.cls_id).all()


def test_text_pipeline_draws_new_instances_and_masks_each_epoch_deterministically(vocab):
    config = PretrainingDataConfig(max_seq_length=64, random_seed=3)
    first, second = text_batches(vocab, config, epochs=2)
    assert not np.array_equal(first[F.INPUT_IDS], second[F.INPUT_IDS])
    again = text_batches(vocab, config, epochs=2)
    assert all(np.array_equal(again[0][k], v) for k, v in first.items())


def test_text_pipeline_left_to_right_targets(vocab):
    config = PretrainingDataConfig(max_seq_length=48, objective="ltr")
    batch = text_batches(vocab, config)[0]
    assert F.NEXT_SENTENCE_LABELS not in batch and not (batch[F.INPUT_IDS] == vocab.mask_id).any()
    np.testing.assert_array_equal(batch[F.MASKED_LM_IDS][:, :5], batch[F.INPUT_IDS][:, 1:6])


def test_text_pipeline_with_the_graph_tokenizer_matches_the_python_tokenizer(vocab, uncased_vocab_file):
    """Whole documents as single segments: restored ids are exactly [CLS] document [SEP]."""
    graph_tokenizer = pytest.importorskip("data.text.graph_tokenizer")
    config = PretrainingDataConfig(max_seq_length=256, short_seq_prob=0.0, objective="mlm")
    tokenizer = FullTokenizer(uncased_vocab_file)
    documents = open(CORPUS, encoding="utf-8").read().split("\n\n")
    expected = {
        tuple([vocab.cls_id] + [i for line in d.splitlines() for i in tokenizer.encode(line)] + [vocab.sep_id])
        for d in documents
    }
    batch = text_batches(vocab, config, tokenizer=graph_tokenizer.GraphTokenizer(vocab))[0]
    restored = restore_original_ids(batch).numpy()
    got = {tuple(row[: length]) for row, length in zip(restored, batch[F.INPUT_MASK].sum(1))}
    assert got == expected
