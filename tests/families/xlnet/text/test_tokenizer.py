"""XLNet's SentencePiece tokenizer: the learned model's special ids, the
original's preprocessing and digit-comma rule, and equal ids in-graph."""

import os
import sys

import pytest

from data.pretraining.corpus_reader import CorpusError
from data.text.sentencepiece_vocab import SPECIAL_SYMBOLS, train_sentencepiece
from families.xlnet.tokenizer import XLNetTokenizer, preprocess_text
from tests import warm_python
from tests.conftest import ROOT

# Dates and counts, so that the model learns pieces ending in a digit and a comma.
NUMBER_LINES = [f"In {1900 + 7 * i}, we counted {i * 1234:,} items on May {i % 28 + 1}, so it seems."
                for i in range(200)]

SENTENCES = [
    "In 2019, we paid 1,000 dollars.", "9, 10, 3,", "x9, y19, 1,234,567, 2,", "May 9, 2019,",
    "  ``Hi''  there\t\n x ", "`single` and 'single' quotes, \"double\" ones", "café naïve Ëlan Ångström",
    "", " ", "\t\n", "ΣΑΣ ΟΔΟΣ Σ. İstanbul ΑΣ'Σ", "日本語のテキスト、１２３,", "Привет, мир 42,",
    "a\u2003\u3000b \x1c c\u00a0d", "ﬁne ½ ², ٣,", "<eop> <cls> tokens",
]


def _write(path, lines):
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return str(path)


@pytest.fixture(scope="module")
def numbers_model(tmp_path_factory):
    d = tmp_path_factory.mktemp("spm_numbers")
    model = str(d / "spiece.model")
    train_sentencepiece(_write(d / "corpus.txt", NUMBER_LINES), model, 100, character_coverage=1.0,
                        hard_vocab_limit=False)
    return model


@pytest.fixture(scope="module")
def prose_model(tmp_path_factory):
    """~300 stdlib docstring sentences plus the number lines, ~400 pieces."""
    from demo.stdlib_corpus import documents
    lines = []
    for _, docs in documents():
        lines.extend(sentence for doc in docs for sentence in doc)
        if len(lines) >= 300:
            break
    d = tmp_path_factory.mktemp("spm_prose")
    model = str(d / "spiece.model")
    train_sentencepiece(_write(d / "corpus.txt", lines[:300] + NUMBER_LINES[:100]), model, 400,
                        character_coverage=1.0, hard_vocab_limit=False)
    return model


def test_special_symbols_at_the_original_ids(prose_model):
    sp = XLNetTokenizer(prose_model).sp
    assert [sp.id_to_piece(i) for i in range(9)] == list(SPECIAL_SYMBOLS)
    assert [sp.is_control(i) for i in range(3, 8)] == [True] * 5
    # <eop> and the original's punctuation are user-defined: one piece each in text.
    assert "<eop>" in sp.encode_as_pieces("a<eop>b")
    assert '"' in sp.encode_as_pieces('say "b"')
    assert sp.piece_to_id('"') != sp.unk_id() and sp.piece_to_id("<eop>") == 8


def test_preprocess_text_as_the_original():
    assert preprocess_text("  ``Hi''  there\t\n x ") == '"Hi" there x'
    assert preprocess_text("`one` ``two''") == '`one` "two"'
    assert preprocess_text("Café ﬁ ½") == "Cafe fi 1⁄2"
    assert preprocess_text("Café", keep_accents=True) == "Café"
    assert preprocess_text("ÉΣΑΣ", lower=True) == "eσας"
    assert preprocess_text(" a  b ", remove_space=False) == " a  b "
    assert preprocess_text("") == ""


def test_digit_comma_pieces_are_split(numbers_model):
    tok = XLNetTokenizer(numbers_model)
    raw, ours = tok.sp.encode_as_pieces, tok.tokenize
    # A piece that starts a word keeps the re-encoding's marker.
    assert raw("on 14, it")[-2:] == ["▁14,", "▁it"]
    assert ours("on 14, it")[-5:] == ["▁", "1", "4", ",", "▁it"]
    # Inside a word: a lone marker from the re-encoding is dropped ...
    assert raw("May 9, 2019,")[-5:] == ["▁", "9,", "▁20", "1", "9,"]
    assert ours("May 9, 2019,")[-7:] == ["▁", "9", ",", "▁20", "1", "9", ","]
    # ... and a marker glued to a piece is taken off it ("▁23" -> "23").
    assert raw("a123, it")[-3:] == ["1", "23,", "▁it"]
    assert ours("a123, it")[-4:] == ["1", "23", ",", "▁it"]
    # A comma after a non-digit, or alone, is left as it is.
    assert ours("1,000") == raw("1,000")
    assert tok.encode_ids("In 2019, we") == [tok.sp.piece_to_id(p) for p in ours("In 2019, we")]


@pytest.mark.parametrize("lower,keep_accents", [(False, False), (True, False), (False, True), (True, True)])
def test_graph_ids_equal_python(prose_model, numbers_model, lower, keep_accents):
    import tensorflow as tf
    from families.xlnet.graph_tokenizer import GraphXLNetTokenizer
    for model in (prose_model, numbers_model):
        python = XLNetTokenizer(model, lower=lower, keep_accents=keep_accents)
        graph = GraphXLNetTokenizer(model, lower=lower, keep_accents=keep_accents)
        ids = graph.tokenize(tf.constant(SENTENCES)).to_list()
        assert ids == [python.encode_ids(s) for s in SENTENCES]
        assert [t.decode() for t in graph.preprocess(tf.constant(SENTENCES)).numpy()] == \
            [python.preprocess(s) for s in SENTENCES]
    # The digit-comma rule fired on this set.
    assert any(p.endswith(",") and len(p) > 1 and p[-2].isdigit()
               for s in SENTENCES for p in python.sp.encode_as_pieces(python.preprocess(s)))


def test_empty_corpus_is_an_error(tmp_path):
    corpus = _write(tmp_path / "empty.txt", ["", "   "])
    with pytest.raises(CorpusError, match="empty corpus.*empty.txt"):
        train_sentencepiece(corpus, str(tmp_path / "spiece.model"), 100)
    assert not os.path.exists(tmp_path / "spiece.model")


def test_invalid_utf8_names_file_and_line(tmp_path):
    corpus = tmp_path / "bad.txt"
    corpus.write_bytes(b"good line\nsecond line\nbad \xff byte\n")
    with pytest.raises(CorpusError, match=r"bad.txt:3: invalid UTF-8"):
        train_sentencepiece(str(corpus), str(tmp_path / "spiece.model"), 100)


def test_command_line_writes_the_model(tmp_path):
    corpus = _write(tmp_path / "c.txt", NUMBER_LINES)
    model = tmp_path / "out" / "spiece.model"
    run = [sys.executable, "build_spm_vocab.py", f"--input_file={corpus}", f"--model_file={model}",
           "--vocab_size=80", "--character_coverage=1.0"]
    warm_python.run(run, cwd=ROOT, check=True, capture_output=True)
    assert XLNetTokenizer(str(model)).sp.get_piece_size() == 80
    assert os.listdir(tmp_path / "out") == ["spiece.model"]
    bad = warm_python.run(run[:2] + [f"--input_file={_write(tmp_path / 'e.txt', [''])}"] + run[3:],
                          cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode != 0 and "empty corpus" in bad.stderr and "e.txt" in bad.stderr


def test_graph_tokenizer_survives_a_saved_model(prose_model, tmp_path):
    import tensorflow as tf
    from families.xlnet.graph_tokenizer import GraphXLNetTokenizer
    tf.saved_model.save(GraphXLNetTokenizer(prose_model, lower=True), str(tmp_path / "tok"))
    loaded = tf.saved_model.load(str(tmp_path / "tok"))
    python = XLNetTokenizer(prose_model, lower=True)
    assert loaded.tokenize(tf.constant(SENTENCES)).to_list() == [python.encode_ids(s) for s in SENTENCES]


def test_vocab_larger_than_the_corpus_allows_is_a_clear_error(tmp_path):
    corpus = _write(tmp_path / "small.txt", ["a b c", "d e f"])
    with pytest.raises(CorpusError, match=r"small.txt: sentencepiece could not learn.*Vocabulary size too high"):
        train_sentencepiece(corpus, str(tmp_path / "spiece.model"), 500)


# Words whose characters all normalise away, beside ones that do not.
WORD_TEXTS = SENTENCES + ["x \u0301 y\u0308", "\u00a8 \x07\u200b ok", "\u0301",
                          "\x00\x01\x1f\x7f\u200b\ufeff control\x85 chars\u2028 a\x00b"]


def _word_byte_spans(text):
    """[begin, end) UTF-8 byte spans of the runs of non-whitespace (str.isspace)."""
    spans, begin, at = [], None, 0
    for char in text + " ":
        if char.isspace() and begin is not None:
            spans.append((begin, at))
            begin = None
        elif not char.isspace() and begin is None:
            begin = at
        at += len(char.encode("utf-8"))
    return spans


def test_pieces_never_cross_whitespace(prose_model, numbers_model):
    """Each word tokenized alone gives the pieces it has inside running text,
    so word-level tasks may tokenize word by word."""
    with open(os.path.join(ROOT, "tests", "fixtures", "sentences.txt"), encoding="utf-8") as f:
        texts = [line.strip() for line in f if line.strip()] + WORD_TEXTS
    for model in (prose_model, numbers_model):
        for lower in (False, True):
            tok = XLNetTokenizer(model, lower=lower)
            for text in texts:
                assert tok.encode_ids(text) == [i for w in text.split() for i in tok.encode_ids(w)], text


@pytest.mark.parametrize("lower", [False, True])
def test_graph_word_pieces_and_offsets_equal_python(prose_model, numbers_model, lower):
    import tensorflow as tf
    from families.xlnet.graph_tokenizer import GraphXLNetTokenizer
    for model in (prose_model, numbers_model):
        python = XLNetTokenizer(model, lower=lower)
        graph = GraphXLNetTokenizer(model, lower=lower)
        ids, begins, ends = graph.tokenize_with_offsets(tf.constant(WORD_TEXTS))
        assert ids.dtype == tf.int32 and begins.dtype == ends.dtype == tf.int64
        assert ids.to_list() == [[python.encode_ids(w) for w in t.split()] for t in WORD_TEXTS]
        # Word-level offsets: every piece spans its word's bytes.
        assert [[[(b, e) for b, e in zip(word_begins, word_ends)] for word_begins, word_ends in zip(*row)]
                for row in zip(begins.to_list(), ends.to_list())] == [
            [[span] * len(python.encode_ids(w)) for w, span in zip(t.split(), _word_byte_spans(t))]
            for t in WORD_TEXTS]
    assert [] in ids.to_list()[-1]  # a word without pieces keeps its place
