"""Packing token ids into XLNet fine-tuning inputs as the original
`classifier_utils.convert_single_example`: A <sep> (B <sep>) <cls>, with
<cls> last (the sequence summary reads the last position), padded on the
left, the input mask 1 for padding.

Padding follows the original too: id 0 and segment id 4 (SEG_ID_PAD); the
model only compares segment ids for equality, and masks padding anyway.
"""

import numpy as np

from data.text.segments import truncate_pair
from data.text.sentencepiece_vocab import SPECIAL_SYMBOLS

SEG_ID_A, SEG_ID_B, SEG_ID_CLS, SEG_ID_PAD = 0, 1, 2, 4


def pack_xlnet_ids(ids_a, ids_b, max_seq_length, sep_id=SPECIAL_SYMBOLS["<sep>"],
                   cls_id=SPECIAL_SYMBOLS["<cls>"], pad_id=0):
    """(input_ids, input_mask, segment_ids) as int32 arrays of `max_seq_length`.

    An empty or None `ids_b` packs A alone; a pair that does not fit loses
    tokens from the end of the longer segment first.
    """
    specials = 3 if ids_b else 2
    if max_seq_length < specials:
        raise ValueError(f"max_seq_length {max_seq_length} leaves no room for <sep>/<cls>")
    ids_a, ids_b = truncate_pair(ids_a, ids_b or [], max_seq_length - specials)
    ids = ids_a + [sep_id]
    segment_ids = [SEG_ID_A] * len(ids)
    if ids_b:
        ids += ids_b + [sep_id]
        segment_ids += [SEG_ID_B] * (len(ids_b) + 1)
    ids.append(cls_id)
    segment_ids.append(SEG_ID_CLS)
    padding = max_seq_length - len(ids)
    return (np.array([pad_id] * padding + ids, np.int32),
            np.array([1] * padding + [0] * len(ids), np.int32),
            np.array([SEG_ID_PAD] * padding + segment_ids, np.int32))
