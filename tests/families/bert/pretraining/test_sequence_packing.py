"""Packed pretraining rows: the packer's invariants, and a packed row giving
each of its instances exactly what the encoder and heads give it alone."""

import os
import sys

import numpy as np
import pytest
import tensorflow as tf

from benchmarks.packed_pretraining import synthetic_instances
from data.pretraining import features as F
from data.pretraining.dataset import RecordLayoutError, pretraining_dataset
from families.bert.commands.pack_pretraining_data import pack_pretraining_files
from families.bert.encoder import BertEncoder
from families.bert.pretrainer import BertPretrainer
from families.bert.pretraining.sequence_packing import pack_lengths, pack_rows
from families.bert.pretraining.task import PretrainingTask
from modeling.masks import position_ids_from_input_mask
from tasks.pretraining.losses import pretraining_loss
from tests import warm_python
from tests.conftest import ROOT
from tests.pretraining_records import TINY, write_records
from training.optimization import OptimizerConfig
from training.run_options import RunOptions
from training.trainer import Trainer

NO_DROPOUT = TINY.replace(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)


@pytest.mark.parametrize("seed", range(5))
def test_every_instance_lands_once_in_a_pack_that_fits(seed):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 513, 2000)
    packs = pack_lengths(lengths, 512, 3)
    assert sorted(i for pack in packs for i in pack) == list(range(2000))
    assert all(1 <= len(pack) <= 3 and lengths[pack].sum() <= 512 for pack in packs)
    # Best-fit decreasing on uniform lengths leaves little room: the lower bound is sum / 512.
    assert len(packs) <= 1.1 * lengths.sum() / 512


def test_pack_lengths_is_deterministic_and_rejects_impossible_lengths():
    lengths = [300, 200, 500, 100, 12, 12]
    assert pack_lengths(lengths, 512, 3) == pack_lengths(lengths, 512, 3)
    assert pack_lengths([300, 200, 500, 100], 512, 3) == [[2], [0, 1], [3]]
    assert pack_lengths([5, 5, 5, 5], 512, 2) == [[0, 1], [2, 3]]
    with pytest.raises(ValueError, match="instance 1 has length 513"):
        pack_lengths([3, 513], 512, 3)
    with pytest.raises(ValueError, match="instance 0 has length 0"):
        pack_lengths([0], 512, 3)
    with pytest.raises(ValueError, match="instance 0 has length 3 and 9 predictions"):
        pack_lengths([3], 512, 3, predictions=[9], max_predictions=8)


def test_a_pack_holds_no_more_predictions_than_one_row():
    rng = np.random.default_rng(7)
    lengths = rng.integers(1, 129, 1000)
    predictions = np.minimum(20, np.maximum(1, np.round(0.2 * lengths))).astype(int)
    packs = pack_lengths(lengths, 128, 3, predictions, 20)
    assert all(predictions[pack].sum() <= 20 for pack in packs)
    assert len(packs) < 0.8 * len(lengths)


def test_positions_restart_per_packed_sequence_and_stay_plain_for_padding_masks():
    packed = np.array([[1, 1, 1, 2, 2, 3, 0, 0]])
    np.testing.assert_array_equal(position_ids_from_input_mask(packed), [[0, 1, 2, 0, 1, 0, 0, 1]])
    padded = np.array([[1, 1, 1, 0, 0, 0, 0, 0]])
    np.testing.assert_array_equal(position_ids_from_input_mask(padded), [list(range(8))])


def _predicted(length, predictions):
    """How many predictions `synthetic_instances` gives an instance of `length` tokens."""
    return int(min(predictions, max(1, round(0.15 * length)), length - 1))


def _instances(lengths, seq_length, predictions, seed=0):
    return synthetic_instances(lengths, seq_length, predictions, TINY.vocab_size, seed)


def _model_inputs(rows, packed):
    inputs = {"input_word_ids": rows[F.INPUT_IDS], "input_mask": rows[F.INPUT_MASK],
              "input_type_ids": rows[F.SEGMENT_IDS], "masked_lm_positions": rows[F.MASKED_LM_POSITIONS]}
    if packed:
        inputs["next_sentence_positions"] = rows[F.NEXT_SENTENCE_POSITIONS]
    return {k: tf.constant(v, tf.int32) for k, v in inputs.items()}


def _encoder_inputs(rows):
    inputs = _model_inputs(rows, packed=False)
    return {k: inputs[k] for k in ("input_word_ids", "input_mask", "input_type_ids")}


@pytest.mark.parametrize("objective", ["mlm_nsp", "ltr"])
def test_a_packed_row_encodes_each_instance_as_if_alone(objective):
    seq_length, predictions = 24, 4
    lengths = [9, 7, 5, 11, 13]
    instances = _instances(lengths, seq_length, predictions)
    groups = pack_lengths(lengths, seq_length, 3, [_predicted(n, predictions) for n in lengths],
                          predictions)
    assert max(len(g) for g in groups) == 3
    rows = pack_rows(instances, groups, seq_length, predictions, 3)

    causal = objective == "ltr"
    alone = BertPretrainer(BertEncoder(NO_DROPOUT, causal_attention=causal), objective)
    together = BertPretrainer(BertEncoder(NO_DROPOUT, causal_attention=causal), objective,
                              packed=not causal)
    alone(_model_inputs(instances, False))
    together(_model_inputs(rows, not causal))
    together.set_weights(alone.get_weights())

    expected = alone(_model_inputs(instances, False))
    got = together(_model_inputs(rows, not causal))
    expected_tokens = alone.encoder(_encoder_inputs(instances))["sequence_output"].numpy()
    got_tokens = together.encoder(_encoder_inputs(rows))["sequence_output"].numpy()
    for row, group in enumerate(groups):
        start = 0
        for number, index in enumerate(group):
            length = lengths[index]
            np.testing.assert_allclose(got_tokens[row, start:start + length],
                                       expected_tokens[index, :length], atol=1e-5)
            first = sum(_predicted(lengths[g], predictions) for g in group[:number])  # group order
            count = _predicted(length, predictions)
            np.testing.assert_allclose(got["mlm_logits"][row, first:first + count],
                                       expected["mlm_logits"][index, :count], atol=1e-4)
            if not causal:
                np.testing.assert_allclose(got["nsp_logits"][row, number],
                                           expected["nsp_logits"][index], atol=1e-5)
            start += length


def test_a_packed_rows_loss_is_the_mean_of_its_instances_losses():
    seq_length, predictions = 24, 6
    lengths = [9, 7, 5]
    instances = _instances(lengths, seq_length, predictions, seed=3)
    rows = pack_rows(instances, [[0, 1, 2]], seq_length, predictions, 3)
    alone = BertPretrainer(BertEncoder(NO_DROPOUT))
    together = BertPretrainer(BertEncoder(NO_DROPOUT), packed=True)
    alone(_model_inputs(instances, False))
    together(_model_inputs(rows, True))
    together.set_weights(alone.get_weights())
    labels = {k: instances[k] for k in (F.MASKED_LM_IDS, F.MASKED_LM_WEIGHTS, F.NEXT_SENTENCE_LABELS)}
    each = pretraining_loss(alone(_model_inputs(instances, False)), labels).numpy()
    packed_labels = {k: rows[k] for k in (F.MASKED_LM_IDS, F.MASKED_LM_WEIGHTS,
                                          F.NEXT_SENTENCE_LABELS, F.NEXT_SENTENCE_WEIGHTS)}
    packed = pretraining_loss(together(_model_inputs(rows, True)), packed_labels).numpy()
    np.testing.assert_allclose(packed, [each.mean()], rtol=1e-5)
    del packed_labels[F.NEXT_SENTENCE_WEIGHTS]
    with pytest.raises(ValueError, match="need next_sentence_weights"):
        pretraining_loss(together(_model_inputs(rows, True)), packed_labels)


def test_packed_records_round_trip_and_train(tmp_path):
    source = write_records(tmp_path / "train.tfrecord", count=96, seq_length=32, predictions=8,
                           min_length=10)
    packed_file = str(tmp_path / "packed.tfrecord")
    stats = pack_pretraining_files(source, packed_file, 32, 8, max_sequences_per_pack=3, window=40)
    assert stats["instances"] == 96 and stats["rows"] < 90
    assert stats["padding_share_after"] < stats["padding_share_before"] - 0.05

    def token_multiset(dataset, packed):
        seqs = []
        for batch in dataset:
            for ids, mask in zip(batch[F.INPUT_IDS].numpy(), batch[F.INPUT_MASK].numpy()):
                for number in range(1, (mask.max() if packed else 1) + 1):
                    seqs.append(tuple(ids[mask == number]))
        return sorted(seqs)

    original = pretraining_dataset(source, 8, 32, 8, shuffle=False)
    rows = pretraining_dataset(packed_file, 8, 32, 8, shuffle=False, max_sequences_per_pack=3)
    assert token_multiset(rows, True) == token_multiset(original, False)
    with pytest.raises(RecordLayoutError, match="next_sentence_positions"):
        pretraining_dataset(source, 8, 32, 8, max_sequences_per_pack=3)

    task = PretrainingTask(TINY, packed_file, max_seq_length=32, max_predictions_per_seq=8,
                           max_sequences_per_pack=3)
    trainer = Trainer(task, RunOptions(output_dir=str(tmp_path / "run"), log_steps=2))
    logs = trainer.train(batch_size=8, num_steps=4, optimizer=OptimizerConfig(learning_rate=1e-3))
    assert all(np.isfinite(r["loss"]) for r in logs)
    results = trainer.evaluate(batch_size=8, max_steps=2)
    assert 0.0 <= results["next_sentence_accuracy"] <= 1.0


def test_the_command_line_packs_and_names_a_missing_input(tmp_path):
    source = write_records(tmp_path / "in.tfrecord", count=20, seq_length=32, predictions=4,
                           min_length=8)
    script = os.path.join(ROOT, "pack_pretraining_data.py")
    common = ["--max_seq_length=32", "--max_predictions_per_seq=4", "--max_sequences_per_pack=2"]
    done = warm_python.run([sys.executable, script, f"--input_file={source}",
                            f"--output_file={tmp_path / 'out.tfrecord'}", *common],
                           capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "20 instances in" in done.stderr and (tmp_path / "out.tfrecord").exists()
    missing = warm_python.run([sys.executable, script, f"--input_file={tmp_path / 'none*.tfrecord'}",
                               f"--output_file={tmp_path / 'other.tfrecord'}", *common],
                              capture_output=True, text=True)
    assert missing.returncode != 0 and "none*.tfrecord" in missing.stderr
    assert not (tmp_path / "other.tfrecord").exists()
