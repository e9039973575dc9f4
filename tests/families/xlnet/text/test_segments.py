"""XLNet fine-tuning inputs: A <sep> B <sep> <cls>, left padding, mask 1 = padding."""

import numpy as np
import pytest

from families.xlnet.segments import pack_xlnet_ids

SEP, CLS = 4, 3


def test_pair_with_left_padding():
    ids, mask, segments = pack_xlnet_ids([10, 11], [20], 8)
    np.testing.assert_array_equal(ids, [0, 0, 10, 11, SEP, 20, SEP, CLS])
    np.testing.assert_array_equal(mask, [1, 1, 0, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(segments, [4, 4, 0, 0, 0, 1, 1, 2])
    assert ids.dtype == mask.dtype == segments.dtype == np.int32


@pytest.mark.parametrize("ids_b", [None, []])
def test_single_segment(ids_b):
    ids, mask, segments = pack_xlnet_ids([10, 11, 12], ids_b, 6)
    np.testing.assert_array_equal(ids, [0, 10, 11, 12, SEP, CLS])
    np.testing.assert_array_equal(mask, [1, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(segments, [4, 0, 0, 0, 0, 2])


def test_longer_segment_is_truncated_first():
    ids, mask, segments = pack_xlnet_ids([10, 11, 12, 13, 14], [20, 21], 8)
    # 5 tokens of room: the longer A loses 14, then 13.
    np.testing.assert_array_equal(ids, [10, 11, 12, SEP, 20, 21, SEP, CLS])
    np.testing.assert_array_equal(mask, [0] * 8)
    # 3 tokens of room: B loses 22, then at a tie B again (the original pops B unless A is longer).
    ids, _, _ = pack_xlnet_ids([10, 11], [20, 21, 22], 6)
    np.testing.assert_array_equal(ids, [10, 11, SEP, 20, SEP, CLS])


def test_single_segment_truncated_at_the_end():
    ids, _, segments = pack_xlnet_ids(list(range(10, 20)), None, 5)
    np.testing.assert_array_equal(ids, [10, 11, 12, SEP, CLS])
    np.testing.assert_array_equal(segments, [0, 0, 0, 0, 2])


def test_too_short_is_an_error():
    with pytest.raises(ValueError, match="max_seq_length 2"):
        pack_xlnet_ids([1], [2], 2)
