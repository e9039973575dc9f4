"""TFRecord files written without TensorFlow: each record is framed as
length (uint64 LE), masked CRC-32C of the length, data, masked CRC-32C of the
data.

The CRCs of a batch of records are computed together in NumPy, four bytes
per step across all records. Records are right-aligned in one matrix; the zero
bytes in front of a shorter record are compensated by starting its register
in the state that those zeros carry to the standard initial value.

Shards are written atomically: each goes to a temporary file that is renamed
over the final name only after every record has been written; a shard that
gets no record is not written.
"""

import contextlib
import os

import numpy as np

from data.pretraining.ragged_bytes import RaggedBytes, right_aligned
from utils.files import atomic_output, new_file_mode

_CASTAGNOLI = 0x82F63B78
_MASK_DELTA = 0xA282EAD8
_INITIAL = 0xFFFFFFFF


def _byte_table():
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(_CASTAGNOLI), table >> 1).astype(np.uint32)
    return table


def _advance(table, register, steps):
    """The register after `steps` zero bytes."""
    for _ in range(steps):
        register = table[register & 0xFF] ^ (register >> 8)
    return register


_TABLE = _byte_table()
# Four bytes per step: after the word is XORed in, the register is advanced
# by four bytes, which is the low half advanced four bytes XOR the high half
# advanced two (it is shifted in already by 16 bits).
_LOW_HALF = _advance(_TABLE, np.arange(1 << 16, dtype=np.uint32), 4)
_HIGH_HALF = _advance(_TABLE, np.arange(1 << 16, dtype=np.uint32), 2)
# The top byte of each table entry is unique, which makes a step invertible.
_INVERSE_TOP = np.argsort(_TABLE >> 24).astype(np.uint32)


def _states_before_zeros(count):
    """states[k]: the register value that k zero bytes turn into _INITIAL."""
    table, inverse_top = _TABLE.tolist(), _INVERSE_TOP.tolist()
    states, state = [], _INITIAL
    for _ in range(count + 1):
        states.append(state)
        index = inverse_top[state >> 24]
        state = ((state ^ table[index]) << 8 | index) & 0xFFFFFFFF
    return np.array(states, dtype=np.uint32)


_MAX_PADDING = 1 << 16
_STATES = _states_before_zeros(_MAX_PADDING)


def crc32c(flat, lengths):
    """CRC-32C of each of the byte strings stored back to back in `flat`."""
    aligned = right_aligned(flat, lengths)
    extra = -aligned.shape[1] % 4
    aligned = np.pad(aligned, ((0, 0), (extra, 0)))
    padding = aligned.shape[1] - lengths
    if len(padding) and padding.max() > _MAX_PADDING:
        raise ValueError("records in one batch differ in length by more than 64 KiB")
    crc = _STATES[padding]
    for word in np.ascontiguousarray(aligned.view("<u4").T):
        crc ^= word
        crc = _LOW_HALF[crc & 0xFFFF] ^ _HIGH_HALF[crc >> 16]
    return crc ^ np.uint32(_INITIAL)


def masked_crc32c(flat, lengths):
    crc = crc32c(flat, lengths)
    return ((crc >> np.uint32(15)) | (crc << np.uint32(17))) + np.uint32(_MASK_DELTA)


def frame_records(records):
    """The TFRecord framing of each row of a RaggedBytes, as a RaggedBytes."""
    flat, lengths = records.flat(), records.lengths()
    length_bytes = lengths.astype("<u8").view(np.uint8)
    length_crcs = masked_crc32c(length_bytes, np.full(len(lengths), 8))

    def dense(array, width):
        return RaggedBytes.dense(array.astype(f"<u{width}").view(np.uint8).reshape(-1, width))

    return RaggedBytes.concat(
        [dense(lengths, 8), dense(length_crcs, 4), records, dense(masked_crc32c(flat, lengths), 4)]
    )


def shard_blobs(framed, num_shards, first_shard=0):
    """Framed records (a list of bytes) dealt round-robin over `num_shards`,
    record 0 to `first_shard`: one bytes blob and a record count per shard."""
    blobs, counts = [], []
    for shard in range(num_shards):
        rows = framed[(shard - first_shard) % num_shards :: num_shards]
        blobs.append(b"".join(rows))
        counts.append(len(rows))
    return blobs, counts


class ShardedRecordWriter:
    """Writes blobs of framed records to shard files, atomically per shard.

    A shard is opened at its first record, so one that gets none is not
    written (a file of that name from an earlier run is removed: the output
    is exactly the shards with records, which a glob over them reads).

    Example:
    >>> with ShardedRecordWriter(["a.tfrecord", "b.tfrecord"]) as writer:
    ...     writer.write(*shard_blobs(frame_records(encode_examples(features, layout)).to_bytes(), 2))
    """

    def __init__(self, paths):
        self.paths = list(paths)
        self.counts = [0] * len(self.paths)
        self._files = {}
        self._stack = contextlib.ExitStack()

    def __enter__(self):
        self._mode = new_file_mode()
        return self

    def __exit__(self, *exc_info):
        suppress = self._stack.__exit__(*exc_info)
        if exc_info[0] is None:
            for path, count in zip(self.paths, self.counts):
                if not count and os.path.exists(path):
                    os.unlink(path)
        return suppress

    def write(self, blobs, counts):
        """One blob of framed records (and its record count) per shard."""
        for shard, (blob, count) in enumerate(zip(blobs, counts)):
            if not count:
                continue
            if shard not in self._files:
                self._files[shard] = self._stack.enter_context(atomic_output(self.paths[shard], "wb"))
                os.fchmod(self._files[shard].fileno(), self._mode)
            self._files[shard].write(blob)
            self.counts[shard] += count
