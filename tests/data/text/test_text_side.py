"""Each family's text side: Python and in-graph packing agree id for id, BERT's
is exactly the WordPiece code it wraps, XLNet's the original's layout with the
encoder interface's input mask."""

import numpy as np
import pytest
import tensorflow as tf

from contracts import registry
from data.text.segments import encode_texts, pack_ids
from data.text.text_side import TextPacker, as_text_side
from data.text.tokenization import FullTokenizer
from families.xlnet.segments import pack_xlnet_ids
from tests.families.xlnet.spiece_model import learn_spiece_model

TEXTS_A = ["The red house.", "", "On May 3, 1950 the old house counted 74 rooms and 2 doors, "
           "then on May 4 it counted more rooms than anyone.", "doors", "rooms " * 30, "the " * 31]
# Both long in the last two rows: cut to halves, the odd token going to A.
TEXTS_B = ["Rooms and doors!", "tall", "", "May " * 40, "doors " * 31, "old " * 31]


@pytest.fixture(scope="module")
def spiece_model(tmp_path_factory):
    return learn_spiece_model(tmp_path_factory.mktemp("spm"))


@pytest.fixture(scope="module")
def sides(uncased_vocab_file, spiece_model):
    return {"bert": registry.text_side_for("bert", uncased_vocab_file, True),
            "xlnet": registry.text_side_for("xlnet", spiece_model, True)}


def test_every_family_is_registered_by_its_name():
    assert all(registry.family(name).text_side.family == name for name in registry.names())
    with pytest.raises(ValueError, match="no text side for encoder family 't5'"):
        registry.text_side_for("t5", "vocab.txt", True)


@pytest.mark.parametrize("family", ["bert", "xlnet"])
@pytest.mark.parametrize("seq_length", [6, 16, 40])
@pytest.mark.parametrize("paired", [False, True])
def test_graph_packing_equals_python(sides, family, seq_length, paired):
    text = sides[family]
    texts_b = TEXTS_B if paired else None
    expected = text.encode_texts(TEXTS_A, texts_b, seq_length)
    packer = TextPacker(text, seq_length)
    strings = [tf.constant(TEXTS_A)] + ([tf.constant(TEXTS_B)] if paired else [])
    packed = packer.pack(*strings)
    for name, value in expected.items():
        np.testing.assert_array_equal(packed[name].numpy(), value, err_msg=name)
        assert packed[name].dtype == tf.int32


def test_bert_text_side_is_the_wordpiece_code(sides, uncased_vocab_file):
    tokenizer = FullTokenizer(uncased_vocab_file, do_lower_case=True)
    text = sides["bert"]
    assert as_text_side(tokenizer).encode("Hello, World!") == tokenizer.encode("Hello, World!")
    expected = encode_texts(tokenizer, TEXTS_A, TEXTS_B, 24)
    for name, value in text.encode_texts(TEXTS_A, TEXTS_B, 24).items():
        np.testing.assert_array_equal(value, expected[name])
    vocab = tokenizer.vocab
    packed = text.pack([5, 6], [7], 8)
    want = pack_ids([5, 6], [7], 8, vocab.cls_id, vocab.sep_id, vocab.pad_id)
    assert list(packed) == ["input_word_ids", "input_mask", "input_type_ids"]
    for got, want in zip(packed.values(), want):
        np.testing.assert_array_equal(got, want)
    assert (text.model_file_name, text.padding_side) == ("vocab.txt", "right")
    with pytest.raises(TypeError, match="expected a TextSide or a family.s tokenizer"):
        as_text_side("vocab.txt")


def test_xlnet_text_side_masks_real_tokens(sides):
    text = sides["xlnet"]
    word_ids, mask, type_ids = text.pack([10, 11], [20], 8).values()
    original_ids, padding, original_types = pack_xlnet_ids([10, 11], [20], 8)
    np.testing.assert_array_equal(word_ids, original_ids)
    np.testing.assert_array_equal(type_ids, original_types)
    np.testing.assert_array_equal(mask, 1 - padding)
    np.testing.assert_array_equal(mask, [0, 0, 1, 1, 1, 1, 1, 1])
    assert mask.dtype == np.int32
    assert (text.model_file_name, text.padding_side) == ("spiece.model", "left")
    special = text.special_ids
    assert (special.cls, special.sep, special.mask) == (3, 4, 6)


@pytest.mark.parametrize("family", ["bert", "xlnet"])
def test_trim_padding_keeps_the_real_tokens_and_restore_padding_puts_them_back(sides, family):
    text = sides[family]
    inputs = text.encode_texts(["doors", "The red house counted rooms."], None, 24)
    trimmed = text.trim_padding({k: tf.constant(v) for k, v in inputs.items()})
    longest = int(inputs["input_mask"].sum(axis=1).max())
    assert trimmed["input_mask"].shape == (2, longest)
    keep = slice(24 - longest, 24) if family == "xlnet" else slice(0, longest)
    for name, value in inputs.items():
        np.testing.assert_array_equal(trimmed[name].numpy(), value[:, keep])
    # Per-position values ([batch, width, ...]) go back where they were, zeros where cut.
    restored = text.restore_padding({**trimmed, "logits": tf.stack([trimmed["input_mask"]] * 3, -1)}, 24)
    for name, value in {**inputs, "logits": np.stack([inputs["input_mask"]] * 3, -1)}.items():
        expected = np.zeros_like(value)
        expected[:, keep] = value[:, keep]
        np.testing.assert_array_equal(restored[name].numpy(), expected, err_msg=name)


def test_xlnet_graph_packing_needs_room_for_its_specials(sides):
    packer = TextPacker(sides["xlnet"], 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="no room for <sep>/<cls>"):
        packer.pack(tf.constant(["rooms"]), tf.constant(["doors"]))
    with pytest.raises(ValueError, match="one or two segments"):
        packer.pack(*[tf.constant(["a"])] * 3)


@pytest.mark.parametrize("family", ["bert", "xlnet"])
@pytest.mark.parametrize("length", [0, 1, 5])
def test_segment_a_start_is_where_pack_puts_a(sides, family, length):
    text = sides[family]
    ids = list(range(20, 20 + length))
    packed = text.pack(ids, None, 9)
    word_ids, mask = packed["input_word_ids"], packed["input_mask"]
    start = text.segment_a_start(length, 9)
    assert word_ids[start:start + length].tolist() == ids and mask[start:start + length].all()
    assert int(text.segment_a_start(tf.constant(length), 9)) == start


def test_unknown_ids(sides):
    assert sides["bert"].unk_id == sides["bert"].vocab.token_to_id["[UNK]"]
    assert sides["xlnet"].unk_id == 0 == sides["xlnet"].tokenizer.sp.unk_id()
