"""Examples and TFRecord framing written without TensorFlow are byte for
byte what TensorFlow writes, and the cached tokenizer gives the ids of
FullTokenizer."""

import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tests.conftest  # noqa: F401  (repository root on sys.path)

from data.pretraining.example_encoding import encode_examples, varints
from data.pretraining.features import feature_layout
from data.pretraining.tfrecord_writer import ShardedRecordWriter, crc32c, frame_records, shard_blobs
from data.text import text_classes
from data.text.cached_tokenizer import _SPLIT_BUT_DELETED, CachedTokenizer
from data.text.tokenization import FullTokenizer


def random_features(rng, rows, seq=16, width=4):
    return {
        "input_ids": rng.integers(0, 2**31, (rows, seq)) >> rng.integers(0, 31, (rows, seq)),
        "input_mask": rng.integers(0, 2, (rows, seq)),
        "segment_ids": rng.integers(0, 2, (rows, seq)),
        "masked_lm_positions": rng.integers(0, seq, (rows, width)),
        "masked_lm_ids": rng.integers(0, 30522, (rows, width)),
        "masked_lm_weights": rng.random((rows, width)).astype(np.float32),
        "next_sentence_labels": rng.integers(0, 2, (rows, 1)),
    }


def test_examples_parse_back_to_the_arrays():
    import tensorflow as tf

    features = random_features(np.random.default_rng(0), 50)
    layout = feature_layout(16, 4)
    for row, serialized in enumerate(encode_examples(features, layout).to_bytes()):
        parsed = tf.train.Example.FromString(serialized).features.feature
        assert set(parsed) == set(layout)
        for name, (_, kind) in layout.items():
            values = parsed[name].float_list.value if kind == "float" else parsed[name].int64_list.value
            np.testing.assert_array_equal(np.array(values, dtype=features[name].dtype), features[name][row])


def test_byte_string_features_parse_back():
    """Words beside numbers: empty strings, multi-byte UTF-8, NUL bytes and a
    string of over 127 bytes (a two-byte length)."""
    import tensorflow as tf

    from data.pretraining.features import BYTES, INT
    words = [[b"", "Ünïcödé".encode(), b"a\x00b"], [b"x" * 200, b"</S>", "😀".encode()]]
    features = {"ids": np.array([[1, 300, 0], [7, 8, 2**40]]), "words": words}
    layout = {"ids": (3, INT), "words": (3, BYTES)}
    for row, serialized in enumerate(encode_examples(features, layout).to_bytes()):
        parsed = tf.train.Example.FromString(serialized).features.feature
        assert list(parsed["words"].bytes_list.value) == words[row]
        assert list(parsed["ids"].int64_list.value) == features["ids"][row].tolist()


def test_tfrecord_files_are_identical_to_tensorflows(tmp_path):
    import tensorflow as tf

    records = encode_examples(random_features(np.random.default_rng(1), 300), feature_layout(16, 4)).to_bytes()
    records.append(b"")  # the framing must also hold for an empty record
    shards = [str(tmp_path / f"ours-{i}") for i in range(3)]
    with ShardedRecordWriter(shards) as writer:
        writer.write(*shard_blobs(frame_records(_ragged(records)).to_bytes(), 3, first_shard=1))
    for shard in range(3):
        # Record 0 went to shard 1, record 1 to shard 2, record 2 to shard 0, ...
        expected = tmp_path / f"theirs-{shard}"
        with tf.io.TFRecordWriter(str(expected)) as writer:
            for record in records[(shard - 1) % 3 :: 3]:
                writer.write(record)
        assert (tmp_path / f"ours-{shard}").read_bytes() == expected.read_bytes()


def _ragged(records):
    from data.pretraining.ragged_bytes import RaggedBytes

    width = max(len(r) for r in records)
    values = np.zeros((len(records), width), dtype=np.uint8)
    present = np.arange(width) < np.array([len(r) for r in records])[:, None]
    values[present] = np.frombuffer(b"".join(records), dtype=np.uint8)
    return RaggedBytes(values, present)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.binary(max_size=40), min_size=1, max_size=8))
def test_crc32c_matches_the_reference(records):
    from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import crc32c as reference

    flat = np.frombuffer(b"".join(records), dtype=np.uint8)
    lengths = np.array([len(r) for r in records])
    assert crc32c(flat, lengths).tolist() == [reference(r) for r in records]


def test_varints_match_protobuf():
    from google.protobuf.internal.encoder import _VarintBytes

    values = np.array([[0, 1, 127, 128, 300, 16383, 16384, 2**21, 2**35, 2**63 - 1]])
    encoded = varints(values)
    assert encoded.flat().tobytes() == b"".join(_VarintBytes(int(v)) for v in values[0])


def test_writer_leaves_nothing_behind_on_failure(tmp_path):
    with pytest.raises(RuntimeError):
        with ShardedRecordWriter([str(tmp_path / "a"), str(tmp_path / "b")]) as writer:
            writer.write([b"x", b"y"], [1, 1])
            raise RuntimeError("interrupted")
    assert list(tmp_path.iterdir()) == []


HOSTILE = [
    "Unaffable! Hello,world.",
    "ﬁne ＡＢＣ straße Ǆ",
    "zero\u200bwidth soft\u00adhyphen",
    "tab\tnew\nline\rcarriage\x0bvertical\x0cfeed\x1cfile\x85next",
    "line\u2028separator\u2029paragraph",
    "北京欢迎你 mixed中文text",
    "a" * 250 + " " + "b" * 150,
    "\x00null\ufffdreplacement \u3000ideographic\u00a0nbsp",
    "Ｃａｆé naïve coöperate",
]


@pytest.mark.parametrize("do_lower_case", [True, False])
def test_cached_tokenizer_gives_the_full_tokenizers_ids(uncased_vocab_file, do_lower_case):
    full = FullTokenizer(uncased_vocab_file, do_lower_case)
    cached = CachedTokenizer(full, max_entries=8)
    for text in HOSTILE + HOSTILE:
        assert cached.encode(text) == full.encode(text), repr(text)


def test_the_split_but_deleted_characters_are_exactly_those():
    """Characters str.split() separates on but the original deletes."""
    expected = {
        chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace() and text_classes.is_dropped(chr(c))
    }
    assert expected == {c for c in map(chr, range(0x100)) if _SPLIT_BUT_DELETED.match(c)}
