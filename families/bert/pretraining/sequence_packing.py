"""Packing pretraining instances of varying length into full rows.

A batch padded to `max_seq_length` spends compute on padding: in the paper's
512-token phase instances end at document boundaries and about half the
tokens are padding. Packing puts several instances in one row instead; the
encoder keeps them apart through `input_mask`, which numbers each token's
instance 1, 2, ... (`modeling.masks`), so every instance is encoded exactly as
alone. NumPy only, so benchmarks on machines without TensorFlow use it too.

Row layout, for K = `max_sequences_per_pack` and P = `max_predictions_per_seq`
(the names of `data.pretraining.features`, plus two):
- `input_ids`, `input_mask` (instance number, 0 for padding), `segment_ids`: [S]
- `masked_lm_positions`, `masked_lm_ids`: [P], positions within the row: a
  pack holds at most P predictions, which its S tokens rarely exceed at the
  usual 15%, so the masked-LM head works no more than on a padded row;
  `masked_lm_weights` [P]: 1 / (its instance's prediction count), so the
  row's weighted mean is the mean over its instances of each one's mean
- `next_sentence_positions` (each instance's [CLS]), `next_sentence_labels`,
  `next_sentence_weights` (1 for a present instance): [K]
"""

import numpy as np

from data.pretraining.features import NEXT_SENTENCE_POSITIONS, NEXT_SENTENCE_WEIGHTS


def pack_lengths(lengths, max_seq_length, max_sequences_per_pack, predictions=None,
                 max_predictions=None):
    """Groups of indices into `lengths`, each summing to at most `max_seq_length`
    with at most `max_sequences_per_pack` members (and, given `predictions`, at
    most `max_predictions` of them); every index in exactly one group.

    Best-fit decreasing: longest first, each into the open pack with the least
    room that still fits it, else a new pack.

    Example:
    >>> pack_lengths([300, 200, 500, 100], 512, 3)
    [[2], [0, 1], [3]]
    """
    if max_sequences_per_pack < 1:
        raise ValueError(f"max_sequences_per_pack must be at least 1, got {max_sequences_per_pack}")
    lengths = np.asarray(lengths, np.int64)
    if predictions is None:  # No budget: nothing is predicted, and one slot is never used up.
        predictions, max_predictions = np.zeros_like(lengths), 1
    predictions = np.asarray(predictions, np.int64)
    if max_predictions is None:
        max_predictions = int(predictions.max(initial=0))
    bad = (lengths < 1) | (lengths > max_seq_length) | (predictions > max_predictions)
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        raise ValueError(f"instance {index} has length {lengths[index]} and {predictions[index]} "
                         f"predictions: outside 1..{max_seq_length} tokens, {max_predictions} predictions")
    packs, prediction_room = [], []
    open_by_room = [[] for _ in range(max_seq_length + 1)]  # room -> open packs with that room
    open_count = np.zeros(max_seq_length + 1, np.int64)
    for index in np.argsort(-lengths, kind="stable"):
        length, predicted = int(lengths[index]), int(predictions[index])
        pack = None
        for room in length + np.flatnonzero(open_count[length:]):
            candidates = open_by_room[room]
            fit = next((i for i in range(len(candidates) - 1, -1, -1)
                        if prediction_room[candidates[i]] >= predicted), None)
            if fit is not None:
                pack = candidates.pop(fit)
                open_count[room] -= 1
                break
        if pack is None:
            room, pack = max_seq_length, len(packs)
            packs.append([])
            prediction_room.append(max_predictions)
        packs[pack].append(int(index))
        room -= length
        prediction_room[pack] -= predicted
        if len(packs[pack]) < max_sequences_per_pack and room > 0 and prediction_room[pack] > 0:
            open_by_room[room].append(pack)
            open_count[room] += 1
    return packs


def pack_rows(instances, groups, max_seq_length, max_predictions_per_seq, max_sequences_per_pack):
    """Packed rows (dict of stacked arrays, layout above) from `instances`: a dict of
    padded [n, ...] arrays in the pretraining-record layout, and `groups` from
    `pack_lengths` on their lengths (`input_mask` sums) and prediction counts."""
    width = max_predictions_per_seq
    rows = len(groups)
    out = {name: np.zeros((rows, max_seq_length), np.int64)
           for name in ("input_ids", "input_mask", "segment_ids")}
    out.update({name: np.zeros((rows, width), np.int64)
                for name in ("masked_lm_positions", "masked_lm_ids")})
    out["masked_lm_weights"] = np.zeros((rows, width), np.float32)
    out.update({name: np.zeros((rows, max_sequences_per_pack), np.int64)
                for name in (NEXT_SENTENCE_POSITIONS, "next_sentence_labels")})
    out[NEXT_SENTENCE_WEIGHTS] = np.zeros((rows, max_sequences_per_pack), np.float32)
    lengths = np.asarray(instances["input_mask"]).sum(axis=1)
    for row, group in enumerate(groups):
        start, predicted = 0, 0
        for number, index in enumerate(group):
            length = int(lengths[index])
            tokens = slice(start, start + length)
            out["input_ids"][row, tokens] = instances["input_ids"][index, :length]
            out["segment_ids"][row, tokens] = instances["segment_ids"][index, :length]
            out["input_mask"][row, tokens] = number + 1
            real = np.asarray(instances["masked_lm_weights"][index]) > 0
            count = int(real.sum())
            slots = slice(predicted, predicted + count)
            out["masked_lm_positions"][row, slots] = instances["masked_lm_positions"][index][real] + start
            out["masked_lm_ids"][row, slots] = instances["masked_lm_ids"][index][real]
            out["masked_lm_weights"][row, slots] = 1.0 / max(count, 1)
            out[NEXT_SENTENCE_POSITIONS][row, number] = start
            if "next_sentence_labels" in instances:
                label = np.ravel(instances["next_sentence_labels"][index])[0]
                out["next_sentence_labels"][row, number] = label
            out[NEXT_SENTENCE_WEIGHTS][row, number] = 1.0
            start, predicted = start + length, predicted + count
    if "next_sentence_labels" not in instances:
        for name in (NEXT_SENTENCE_POSITIONS, "next_sentence_labels", NEXT_SENTENCE_WEIGHTS):
            del out[name]
    return out
