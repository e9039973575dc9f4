"""A batch of byte strings of different lengths held as one uint8 matrix with
a mask of the bytes that are present, so that records can be assembled from
pieces and checksummed with whole-array NumPy operations."""

from typing import NamedTuple

import numpy as np


class RaggedBytes(NamedTuple):
    """Row i is the byte string values[i][present[i]]."""

    values: np.ndarray  # [rows, width] uint8
    present: np.ndarray  # [rows, width] bool

    @classmethod
    def dense(cls, values):
        values = np.asarray(values, dtype=np.uint8)
        return cls(values, np.ones(values.shape, dtype=bool))

    @classmethod
    def constant(cls, data, rows):
        values = np.broadcast_to(np.frombuffer(data, dtype=np.uint8), (rows, len(data)))
        return cls(values, np.broadcast_to(True, values.shape))

    @classmethod
    def from_rows(cls, rows):
        """One row per bytes object of `rows`."""
        lengths = np.array([len(r) for r in rows], dtype=np.int64)
        width = int(lengths.max()) if len(rows) else 0
        values = np.zeros((len(rows), width), dtype=np.uint8)
        present = np.arange(width) < lengths[:, None]
        values[present] = np.frombuffer(b"".join(rows), dtype=np.uint8)
        return cls(values, present)

    @classmethod
    def concat(cls, parts):
        return cls(
            np.concatenate([p.values for p in parts], axis=1),
            np.concatenate([np.broadcast_to(p.present, p.values.shape) for p in parts], axis=1),
        )

    def __len__(self):
        return len(self.values)

    def lengths(self):
        return self.present.sum(axis=1)

    def flat(self):
        """All rows back to back."""
        return self.values[self.present]

    def to_bytes(self):
        """Python bytes objects, one per row."""
        data = self.flat().tobytes()
        ends = np.cumsum(self.lengths()).tolist()
        return [data[start:end] for start, end in zip([0] + ends[:-1], ends)]


def right_aligned(flat, lengths):
    """[rows, max length] matrix with row i's bytes at its end, zeros before."""
    width = int(lengths.max()) if len(lengths) else 0
    out = np.zeros((len(lengths), width), dtype=np.uint8)
    out[np.arange(width) >= (width - lengths)[:, None]] = flat
    return out
