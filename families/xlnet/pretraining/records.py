"""One token stream -> XLNet pretraining records, the original
`create_tfrecords` algorithm.

The stream is cut into `bsz_per_host` rows (plus their reversals with
`bi_data`); a window moves along all rows together by `reuse_len`, and at
each stop every row gives one record: the `reuse_len` tokens at the window,
then A <sep> B <sep> <cls> from what follows (B the true continuation of A
half of the time when A can end at a sentence boundary, else a random span of
the same row). The run ends at the first stop where some row has no room.

Random draws follow the original's order (`random` for A and B, NumPy for the
targets), so generators seeded like the original's global ones give its records.
"""

import numpy as np

from families.xlnet.pretraining import features as X
from families.xlnet.pretraining.spans import sample_mask
from data.text.sentencepiece_vocab import SPECIAL_SYMBOLS

SEP_ID = SPECIAL_SYMBOLS["<sep>"]
CLS_ID = SPECIAL_SYMBOLS["<cls>"]
EOD_ID = SPECIAL_SYMBOLS["<eod>"]


def stream_rows(data, sent_ids, config):
    """[bsz_per_host, steps] tokens and sentence ids: the stream cut into
    equal rows; with `bi_data` half as many, each core's slice of rows followed
    by the same rows reversed."""
    rows = config.bsz_per_host // 2 if config.bi_data else config.bsz_per_host
    steps = len(data) // rows
    data = np.asarray(data[: rows * steps]).reshape(rows, steps)
    sent_ids = np.asarray(sent_ids[: rows * steps]).reshape(rows, steps)
    if not config.bi_data:
        return data, sent_ids

    def with_backward(array):
        forward = array.reshape(config.num_core_per_host, 1, rows // config.num_core_per_host, steps)
        return np.concatenate([forward, forward[..., ::-1]], axis=1).reshape(config.bsz_per_host, steps)

    return with_backward(data), with_backward(sent_ids)


def split_a_and_b(data, sent_ids, begin, total, rng):
    """(A, B, label, A's next tokens, B's next tokens) of at most `total` tokens
    from `begin` of one row, or None when the row has no room; the original's
    `_split_a_and_b` with `extend_target`."""
    data_len = len(data)
    if begin + total >= data_len:
        return None
    end = begin + 1
    cut_points = []
    while end < data_len:
        if sent_ids[end] != sent_ids[end - 1]:
            if end - begin >= total:
                break
            cut_points.append(end)
        end += 1
    a_begin = begin
    if not cut_points or rng.random() < 0.5:
        label = 0
        a_end = end if not cut_points else rng.choice(cut_points)
        b_len = max(1, total - (a_end - a_begin))
        b_begin = rng.randint(0, data_len - 1 - b_len)
        b_end = b_begin + b_len
        while b_begin > 0 and sent_ids[b_begin - 1] == sent_ids[b_begin]:
            b_begin -= 1
        while b_end < data_len - 1 and sent_ids[b_end - 1] == sent_ids[b_end]:
            b_end += 1
    else:
        label = 1
        a_end = rng.choice(cut_points)
        b_begin, b_end = a_end, end
    while a_end - a_begin + b_end - b_begin > total:
        if a_end - a_begin > b_end - b_begin:
            a_end -= 1
        else:
            b_end -= 1
    if a_end >= data_len or b_end >= data_len:
        return None
    return (data[a_begin:a_end], data[b_begin:b_end], label,
            data[a_begin + 1:a_end + 1], data[b_begin:b_end + 1])


def records(data, sent_ids, config, starts_table, py_rng, np_rng):
    """Feature arrays ({name: [records, width]}) of every record of one stream,
    in batch order. `starts_table`: bool per id, does the piece begin a word
    (`xlnet_spans.start_piece_table`); `py_rng` a `random.Random`, `np_rng` a
    `numpy.random.RandomState`."""
    c = config
    rows, row_sent_ids = stream_rows(data, sent_ids, c)
    tail = np.array([SEP_ID, CLS_ID])
    goal_reuse, goal_rest = c.num_predict_split
    out = {name: [] for name in X.feature_layout(c.seq_len)}
    i = 0
    while i + c.seq_len <= rows.shape[1]:
        batch = []
        for idx in range(c.bsz_per_host):
            reuse = rows[idx, i:i + c.reuse_len]
            reuse_target = rows[idx, i + 1:i + c.reuse_len + 1]
            split = split_a_and_b(rows[idx], row_sent_ids[idx], i + c.reuse_len,
                                  c.seq_len - c.reuse_len - 3, py_rng)
            if split is None:
                break
            a, b, label, a_target, b_target = split
            rest = np.concatenate([a, [SEP_ID], b, tail])
            reverse = c.bi_data and (idx // (c.bsz_per_core // 2)) % 2 == 1
            is_masked = np.concatenate([
                sample_mask(starts_table[reuse], goal_reuse, c.mask_alpha, c.mask_beta, np_rng, reverse),
                sample_mask(starts_table[rest], goal_rest, c.mask_alpha, c.mask_beta, np_rng, reverse)])
            batch.append({
                X.INPUT: np.concatenate([reuse, rest]),
                X.IS_MASKED: is_masked.astype(np.int64),
                X.TARGET: np.concatenate([reuse_target, a_target, b_target, [CLS_ID, CLS_ID]]),
                X.SEG_ID: np.array([0] * (c.reuse_len + len(a) + 1) + [1] * (len(b) + 1) + [2]),
                X.LABEL: np.array([label]),
            })
        if len(batch) < c.bsz_per_host:
            break
        for record in batch:
            for name, values in record.items():
                out[name].append(values)
        i += c.reuse_len
    width = X.feature_layout(c.seq_len)
    return {name: np.array(values, dtype=np.int64).reshape(-1, width[name][0]) for name, values in out.items()}
