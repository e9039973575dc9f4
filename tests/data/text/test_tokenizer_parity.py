"""The in-graph tokenizer gives the ids of google-research's `FullTokenizer`.

Three tokenizers are compared on hostile multilingual text, cased and uncased:
the original `bert.tokenization.FullTokenizer` (bert-tensorflow), our Python
`data.text.tokenization.FullTokenizer`, and `data.text.graph_tokenizer.GraphTokenizer`.
"""

import functools
import os

import pytest
import tensorflow as tf
from absl import flags
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from data.text import tokenization, unicode_tables
from data.text.graph_tokenizer import GraphTokenizer
from tests.conftest import FIXTURES
from tests.references import minilm_dir, original_full_tokenizer

CASED_VOCAB = os.path.join(FIXTURES, "tokenizer_cased_vocab.txt")

# Not in the fixture file so that it stays valid UTF-8 text without NUL.
HOSTILE_BYTES = [
    b"\x00nul\x00", b"a\xffb c\xfe", b"\xe2\x82 \xe2\x82\xac", b"\xed\xa0\x80surrogate",
    b"\xc0\x80overlong \xe0\x80\xaf", b"\xf4\x90\x80\x80big", b"trunc\xf0\x9f\x98", b"\x80\xbf\xc3",
    b"caf\xc3\xa9\xc3", b"\xce\xa3\xce\x91\xce\xa3\xff.",
]


def uncased_vocab():
    return os.path.join(minilm_dir(), "vocab.txt")


VOCABS = {"uncased": uncased_vocab, "cased": lambda: CASED_VOCAB}
CONFIGS = [(v, lower) for v in VOCABS for lower in (True, False)]
CONFIG_IDS = [f"{v}-vocab-{'lower' if lower else 'keep-case'}" for v, lower in CONFIGS]


@functools.lru_cache(maxsize=None)
def tokenizers(vocab, do_lower_case, preserve_unused_tokens=False):
    """(original, python, graph) tokenizers for one configuration."""
    vocab_file = VOCABS[vocab]()
    return (original_full_tokenizer(vocab_file, do_lower_case),
            tokenization.FullTokenizer(vocab_file, do_lower_case, preserve_unused_tokens),
            GraphTokenizer(vocab_file, do_lower_case, preserve_unused_tokens))


def fixture_lines():
    """Lines of multilingual.txt as bytes; only "\\n" ends a line (\\r, \\x85 and
    \\u2028 inside lines are test material)."""
    with open(os.path.join(FIXTURES, "multilingual.txt"), "rb") as f:
        return f.read().split(b"\n")[:-1]


def assert_parity(config, texts):
    """All three tokenizers give the same ids; the graph also the same words."""
    original, python, graph = tokenizers(*config)
    graph_words = graph.tokenize(tf.constant(texts, tf.string)).to_list()
    for text, words in zip(texts, graph_words):
        expected = original.convert_tokens_to_ids(original.tokenize(text))
        assert python.encode(text) == expected, text
        assert [python.vocab.ids(pieces) for _, pieces in python.tokenize_words(text)] == words, text


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
def test_fixture_lines(config):
    lines = fixture_lines()
    assert len(lines) >= 50
    assert_parity(config, lines)
    assert_parity(config, [line.decode("utf-8") for line in lines])


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
def test_malformed_utf8(config):
    assert_parity(config, HOSTILE_BYTES)


@pytest.fixture
def original_preserves_unused():
    """The original reads preserve_unused_tokens from an absl flag."""
    import bert.tokenization  # noqa: F401  (defines the flag)
    flags.FLAGS.preserve_unused_tokens = True
    yield
    flags.FLAGS.preserve_unused_tokens = False


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
def test_preserve_unused_tokens(config, original_preserves_unused):
    texts = [b"[unused5]", b"[MASK] [unused5]x y [unused5] [UNUSED5] [unused0][unused5]",
             "[unused٥] [unused99999] 中[unused0]".encode(), b"a [unused0] b [unused5]"]
    texts += fixture_lines()
    original, python, graph = tokenizers(*config, preserve_unused_tokens=True)
    ids = graph.tokenize(tf.constant(texts)).merge_dims(1, 2).to_list()
    for text, graph_ids in zip(texts, ids):
        expected = original.convert_tokens_to_ids(original.tokenize(text))
        assert python.encode(text) == expected == graph_ids, text
    unused5 = python.vocab.token_to_id["[unused5]"]
    assert ids[0] == [unused5]


# Random text leaning on the hard cases: marks, format characters, spaces,
# punctuation, both cases, CJK, Σ and its case-ignorable neighbours, the
# non-Mn combining marks that NFD reorders, and whole vocab-ish words.
_CHARS = st.one_of(
    st.characters(categories=("Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "No", "Pc", "Pd", "Ps",
                              "Pe", "Pi", "Pf", "Po", "Sm", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf")),
    st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),
    st.characters(max_codepoint=0x7F),
    st.sampled_from("ΣσςΑαİıßẞﬁ\u0301\u0345\u0307\u200b\u00ad'.:· \t\n\r\u2028\u00a0\u3000"
                    "\u302e\u302f\U0001D165\U0001D16D\u1b44[]#"),
)
_TEXT = st.lists(
    st.one_of(st.text(_CHARS, max_size=12),
              st.sampled_from(["[unused5]", "ΟΔΥΣΣΕΥΣ", "ΣΑΣ.", "Straße", "unaffable", "naïve", " ", "a" * 201])),
    max_size=6).map("".join)
_BYTES = st.lists(st.one_of(st.binary(max_size=4), _TEXT.map(str.encode)), max_size=6).map(b"".join)
_HYPOTHESIS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("lower", [True, False], ids=["lower", "keep-case"])
@_HYPOTHESIS
@given(texts=st.lists(_TEXT, min_size=1, max_size=8))
def test_random_text(lower, texts):
    assert_parity(("uncased", lower), texts)


@pytest.mark.parametrize("lower", [True, False], ids=["lower", "keep-case"])
@_HYPOTHESIS
@given(texts=st.lists(_BYTES, min_size=1, max_size=8))
def test_random_bytes(lower, texts):
    assert_parity(("uncased", lower), texts)


@pytest.mark.slow
@pytest.mark.parametrize("lower", [True, False], ids=["lower", "keep-case"])
def test_every_codepoint(lower):
    """Each assigned codepoint (and a few unassigned, private-use and CJK-range
    ones) next to Σ, a mark and punctuation, against the original."""
    original, _, graph = tokenizers("uncased", lower)
    cps = unicode_tables.assigned_codepoints() + [0x378, 0xE000, 0x2CEAF, 0x40000, 0x10FFFF]
    texts = ["ΑΣ{0}Σ a{0}b {0}\u0301{0}.".format(chr(cp)) for cp in cps]
    got = graph.tokenize(tf.constant(texts)).merge_dims(1, 2).to_list()
    wrong = [t for t, ids in zip(texts, got) if ids != original.convert_tokens_to_ids(original.tokenize(t))]
    assert not wrong, wrong[:10]


def piece_spans(text, lower=True):
    """[(piece, source text of its byte span)] for one string."""
    _, python, graph = tokenizers("uncased", lower)
    ids, begins, ends = (t.merge_dims(1, 2).to_list()[0] for t in graph.tokenize_with_offsets(tf.constant([text])))
    data = text.encode("utf-8")
    return [(python.vocab.id_to_token[i], data[b:e].decode("utf-8")) for i, b, e in zip(ids, begins, ends)]


@pytest.mark.parametrize("text, expected", [
    ("Unaffable!", [("una", "Una"), ("##ffa", "ffa"), ("##ble", "ble"), ("!", "!")]),
    ("  naïve\u200b CAFÉ, ok", [("naive", "naïve"), ("cafe", "CAFÉ"), (",", ","), ("ok", "ok")]),
    ("İstanbul 中文", [("istanbul", "İstanbul"), ("中", "中"), ("文", "文")]),
    ("e\u0301\u0301te", [("et", "e\u0301\u0301t"), ("##e", "e")]),
    ("ΣΑΣ.", [("σ", "Σ"), ("##α", "Α"), ("##ς", "Σ"), (".", ".")]),
    ("x" * 201 + " y", [("[UNK]", "x" * 201), ("y", "y")]),
])
def test_offsets_hand_checked(text, expected):
    assert piece_spans(text) == expected


def test_offsets_keep_case():
    assert piece_spans("Unaffable ﬁne", lower=False) == [
        ("[UNK]", "Unaffable"), ("ﬁ", "ﬁ"), ("##ne", "ne")]


def test_offsets_are_ordered_character_spans():
    """On every fixture line: spans lie in the line, in order, on character boundaries."""
    _, _, graph = tokenizers("uncased", True)
    lines = fixture_lines()
    ids, begins, ends = (t.merge_dims(1, 2).to_list() for t in graph.tokenize_with_offsets(tf.constant(lines)))
    for line, line_begins, line_ends in zip(lines, begins, ends):
        for b, e in zip(line_begins, line_ends):
            assert 0 <= b < e <= len(line)
            line[b:e].decode("utf-8")
        assert line_begins == sorted(line_begins) and line_ends == sorted(line_ends)
    assert [len(x) for x in ids] == [len(x) for x in begins]


def test_tf_data_and_saved_model(tmp_path):
    _, python, graph = tokenizers("uncased", True)
    texts = [line.decode("utf-8") for line in fixture_lines()[:8]]
    expected = [python.encode(t) for t in texts]

    dataset = tf.data.Dataset.from_tensor_slices(texts).batch(4).map(graph.tokenize)
    got = [row.flat_values.numpy().tolist() for batch in dataset for row in batch]
    assert got == expected

    tf.saved_model.save(graph, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    ids, begins, _ = loaded.tokenize_with_offsets(tf.constant(texts))
    assert [row.flat_values.numpy().tolist() for row in ids] == expected
    assert begins.to_list() == graph.tokenize_with_offsets(tf.constant(texts))[1].to_list()
