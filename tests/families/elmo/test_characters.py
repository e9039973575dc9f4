"""ELMo's character ids and word splitting: the original's rules (its
`Batcher` ids are compared in test_bilm_parity), and the graph giving the same
ids as Python on hostile strings."""

import numpy as np
import pytest
import tensorflow as tf

from families.elmo import characters
from families.elmo.graph_characters import GraphCharacters
from tests.data.text.test_tokenizer_parity import HOSTILE_BYTES
from tests.export_harness import HOSTILE_TEXTS
from tests.families.elmo.original_data import original_data_module

ELMO_HOSTILE = [
    "",
    "word " * 20000,  # 100,000 characters of words
    "y" * 100000,  # one 100,000-character word
    "Über-long " + "é" * 40 + " " + "ab" * 30 + " end",  # words over 50 bytes, cut inside a character
    "😀" * 10000,  # 10,000 emoji, one word
    " ".join(["😀"] * 10000),  # 10,000 emoji, 10,000 words
    "Hello, world! (It's 3.5km—far.) «quoted» ¿sí?",
]
HOSTILE = [t.encode("utf-8") for t in HOSTILE_TEXTS + ELMO_HOSTILE] + HOSTILE_BYTES


@pytest.fixture(scope="module")
def graph():
    return GraphCharacters()


def test_word_ids_follow_the_original():
    ids = characters.word_char_ids("aé")
    assert ids[:5] == [259, ord("a") + 1, 0xC3 + 1, 0xA9 + 1, 260] and set(ids[5:]) == {261}
    assert len(ids) == 50
    # 48 bytes at most between begin and end of word, cut inside "é" (2 bytes) as the original.
    long_word = characters.word_char_ids("a" + "é" * 30)
    assert long_word[-1] == 260 and long_word[-2] == 0xC3 + 1
    assert characters.bos_char_ids()[:4] == [259, 257, 260, 261]
    assert characters.eos_char_ids()[:4] == [259, 258, 260, 261]


def test_sentence_boundary_words_are_the_originals_boundary_tokens(graph, tmp_path):
    """The words `<S>` and `</S>` (a task's own words, the `tokens` signature's)
    are the BOS and EOS tokens, as the original's `UnicodeCharsVocabulary`
    gives them (its vocabulary holds both), not spelled out; near misses are
    spelled out. Python and the graph, against the original's vocabulary and
    its `Batcher`."""
    data = original_data_module()
    vocab_file = tmp_path / "vocab.txt"
    vocab_file.write_text("<S>\n</S>\n<UNK>\nthe\n", encoding="utf-8")
    vocab = data.UnicodeCharsVocabulary(str(vocab_file), 50)
    words = ["<S>", "</S>", "<UNK>", "the", "<s>", "</s>", "S", "<S>>", "</S", " <S>", "x"]
    expected = [(vocab.word_to_char_ids(w) + 1).tolist() for w in words]
    assert expected[0] == characters.bos_char_ids() and expected[1] == characters.eos_char_ids()
    assert [characters.word_char_ids(w) for w in words] == expected
    assert graph.word_char_ids(tf.constant(words)).numpy().tolist() == expected
    sentences = [["a", "<S>", "</S>", "b"], ["</S>"]]
    ids, _ = characters.batch_char_ids(sentences, sentence_boundaries=True)
    np.testing.assert_array_equal(ids, data.Batcher(str(vocab_file), 50).batch_sentences(sentences))


def test_split_words():
    assert characters.split_words("Hello, world!  It's\tfine.") == [
        "Hello", ",", "world", "!", "It", "'", "s", "fine", "."]
    assert characters.split_words(b"a\xffb c\xe2\x82") == ["ab", "c"]  # malformed bytes dropped
    assert characters.split_words(" \u3000\n") == []


def test_batches_pad_with_zero_tokens():
    ids, mask = characters.batch_char_ids([["a", "b"], []], seq_len=3)
    assert ids.shape == (2, 3, 50) and ids.dtype == np.int32
    np.testing.assert_array_equal(mask, [[1, 1, 0], [0, 0, 0]])
    assert not ids[0, 2].any() and not ids[1].any()
    framed, framed_mask = characters.batch_char_ids([["a"]], sentence_boundaries=True)
    assert framed.shape == (1, 3, 50) and framed_mask.tolist() == [[1, 1, 1]]


def python_ids(texts, seq_len=None):
    return characters.batch_char_ids([characters.split_words(t) for t in texts], seq_len)


def test_graph_words_are_pythons(graph):
    words = graph.split_words(tf.constant(HOSTILE)).to_list()
    assert words == [[w.encode("utf-8") for w in characters.split_words(t)] for t in HOSTILE]


@pytest.mark.parametrize("seq_len", [None, 7])
def test_graph_ids_are_pythons(graph, seq_len):
    for text in HOSTILE:  # one at a time: a batch pads to its longest row
        ids, mask = graph.encode(tf.constant([text]), seq_len)
        expected_ids, expected_mask = python_ids([text], seq_len)
        np.testing.assert_array_equal(ids.numpy(), expected_ids, err_msg=repr(text[:40]))
        np.testing.assert_array_equal(mask.numpy(), expected_mask)


def test_graph_batch_in_a_serving_function(graph):
    """Unknown batch and lengths, as a SavedModel signature sees them."""
    encode = tf.function(lambda texts: graph.encode(texts, 16),
                         input_signature=[tf.TensorSpec([None], tf.string)])
    texts = HOSTILE[:12]
    ids, mask = encode(tf.constant(texts))
    expected_ids, expected_mask = python_ids(texts, 16)
    np.testing.assert_array_equal(ids.numpy(), expected_ids)
    np.testing.assert_array_equal(mask.numpy(), expected_mask)
