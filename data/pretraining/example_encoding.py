"""Serialized `tf.train.Example`s straight from NumPy arrays, a whole batch
at a time, without TensorFlow or protobuf objects: building one proto per
example is where the original writer spends much of its time, and importing
TensorFlow would cost each writer process most of its memory budget.

Wire format (proto3): Example{1: Features{1: map<string, Feature>}},
map entry {1: key, 2: Feature}, Feature{1: BytesList, 2: FloatList,
3: Int64List}, numbers packed in their list's field 1, each byte string a
field 1 of its own, every length a base-128 varint.
"""

import numpy as np

from data.pretraining.features import BYTES, FLOAT
from data.pretraining.ragged_bytes import RaggedBytes


def varint_size(values):
    """Bytes in the base-128 varint of each non-negative value."""
    values = np.asarray(values)
    top = int(values.max()) if values.size else 0
    size = np.ones(values.shape, dtype=np.int64)
    k = 1
    while top >> (7 * k):
        size += values >= (1 << (7 * k))
        k += 1
    return size


def varints(values):
    """Row-wise base-128 varints of a [rows, width] array of non-negative ints."""
    values = np.asarray(values)
    if values.size and values.min() < 0:
        raise ValueError("int64 features must be non-negative here")
    if not values.size or values.max() < 0x80:
        return RaggedBytes.dense(values)
    values = values.astype(np.uint32 if values.max() < (1 << 32) else np.uint64)
    sizes = varint_size(values)
    groups = int(sizes.max())
    digits = np.empty(values.shape + (groups,), dtype=np.uint8)
    for k in range(groups):
        digits[..., k] = (values >> (7 * k)) & 0x7F
        if k + 1 < groups:
            digits[..., k] |= (sizes > k + 1).astype(np.uint8) << 7
    present = np.arange(groups) < sizes[..., None]
    rows = len(values)
    return RaggedBytes(digits.reshape(rows, -1), present.reshape(rows, -1))


def _floats(values):
    data = np.ascontiguousarray(values, dtype="<f4")
    return RaggedBytes.dense(data.view(np.uint8).reshape(len(data), -1))


def _varint(value):
    """The base-128 varint of one non-negative int, as bytes."""
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _byte_strings(rows):
    """Each row's BytesList content: every byte string as field 1 (tag, length, bytes)."""
    return RaggedBytes.from_rows([b"".join(b"\x0a" + _varint(len(v)) + v for v in row) for row in rows])


def _field(tag, length):
    """Tag byte and varint length of a length-delimited field, per row."""
    return [RaggedBytes.constant(tag, len(length)), varints(length[:, None])]


def _feature_entry(name, kind, array):
    """Byte pieces of one map entry of Features, and its total size per row."""
    if kind == BYTES:
        list_pieces = [_byte_strings(array)]
        list_size = list_pieces[0].lengths()
    else:
        payload = _floats(array) if kind == FLOAT else varints(array)
        payload_size = payload.lengths()
        list_pieces = _field(b"\x0a", payload_size) + [payload]
        list_size = 1 + varint_size(payload_size) + payload_size
    feature_size = 1 + varint_size(list_size) + list_size
    key = b"\x0a" + bytes([len(name)]) + name
    entry_size = len(key) + 1 + varint_size(feature_size) + feature_size
    list_tag = {BYTES: b"\x0a", FLOAT: b"\x12"}.get(kind, b"\x1a")
    pieces = (
        _field(b"\x0a", entry_size)
        + [RaggedBytes.constant(key, len(array))]
        + _field(b"\x12", feature_size)
        + _field(list_tag, list_size)
        + list_pieces
    )
    return pieces, 1 + varint_size(entry_size) + entry_size


def encode_examples(features, layout):
    """Serialized Examples (a RaggedBytes row each), one per row of the
    arrays in `features`.

    `layout` is the ordered {name: (width, kind)} of `feature_layout`; each
    array is [rows, width] (of `bytes` objects for a BYTES feature). Map
    entries are written in layout order.
    """
    pieces, features_size = [], 0
    for name, (width, kind) in layout.items():
        array = np.asarray(features[name], dtype=object if kind == BYTES else None)
        if array.ndim != 2 or array.shape[1] != width:
            raise ValueError(f"feature {name!r}: expected shape [rows, {width}], got {array.shape}")
        encoded_name = name.encode("utf-8")
        if len(encoded_name) >= 0x80:
            raise ValueError(f"feature name too long: {name!r}")
        entry, entry_size = _feature_entry(encoded_name, kind, array)
        pieces += entry
        features_size = features_size + entry_size
    return RaggedBytes.concat(_field(b"\x0a", features_size) + pieces)
