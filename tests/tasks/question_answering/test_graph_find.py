"""The served `get_final_text` searches a span's text in its words with
`graph_answers.find`: Python's `str.find` over codepoints, whatever the text."""

import random

import tensorflow as tf

from tasks.question_answering.graph_answers import find


def in_graph(haystacks, needles):
    """`find` traced, as the export runs it (eagerly, its map over rows steps op by op)."""
    return tf.function(find)(codepoints(haystacks), codepoints(needles)).numpy().tolist()


def codepoints(texts):
    return tf.strings.unicode_decode(tf.constant(texts, tf.string), "UTF-8")


def test_find_is_str_find_over_codepoints():
    rng = random.Random(0)
    alphabet = ["a", "b", " ", "\t", "é", "\u0301", "😀", "\ufffd"]
    haystacks, needles = ["", "", "abc", "abc", "aaab"], ["", "a", "", "abcd", "aab"]
    for _ in range(2000):
        haystack = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
        start = rng.randint(0, len(haystack))
        needle = (haystack[start:start + rng.randint(0, 4)] if rng.random() < 0.4 else
                  "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 3))))
        haystacks.append(haystack)
        needles.append(needle)
    assert in_graph(haystacks, needles) == [h.find(n) for h, n in zip(haystacks, needles)]


def test_invalid_utf8_is_searched_as_its_replacement_characters():
    """Both sides decoded with U+FFFD for each invalid sequence, as the export reads them."""
    haystacks = [b"x\xff\xfey", b"caf\xc3", b"\xc3\xa9t\xc3\xa9"]
    needles = [b"\xfe\xffy", "\ufffd".encode(), "t\u00e9".encode()]
    decoded = [h.decode("utf-8", "replace") for h in haystacks]
    assert in_graph(haystacks, needles) == [
        d.find(n.decode("utf-8", "replace")) for d, n in zip(decoded, needles)]


def test_a_100000_character_word_is_searched_whole():
    word = "y" * 100000
    assert in_graph([word, word, "😀" * 10000], [word[1:], word + "y", "😀" * 9999 + "x"]) == [0, -1, -1]
