"""Names and widths of XLNet's pretraining TFRecord features, as the original
`data_utils.py` writes them, so its records train here and ours there."""

from data.pretraining.features import INT

INPUT = "input"  # token ids
IS_MASKED = "is_masked"  # 1 = chosen for partial prediction
TARGET = "target"  # the next token of each position (the original's LM layout)
SEG_ID = "seg_id"  # 0 reuse and A and its <sep>, 1 B and its <sep>, 2 <cls>
LABEL = "label"  # 1 when B continues A, 0 when B is random


def feature_layout(seq_len):
    """Ordered {name: (width, kind)} of one record."""
    return {INPUT: (seq_len, INT), IS_MASKED: (seq_len, INT), TARGET: (seq_len, INT),
            SEG_ID: (seq_len, INT), LABEL: (1, INT)}
