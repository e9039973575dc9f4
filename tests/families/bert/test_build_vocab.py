"""The WordPiece vocabulary builder: released layout of special tokens,
pieces learned from our basic tokenizer's words, usable by FullTokenizer."""

import os
import sys

import pytest

from data.text.tokenization import FullTokenizer
from data.text.vocab import Vocab
from families.bert.commands.build_vocab import learn_vocabulary, reserved_tokens
from tests import warm_python
from tests.conftest import FIXTURES, ROOT

CORPUS = os.path.join(FIXTURES, "pretraining_corpus.txt")


def test_reserved_tokens_are_in_the_released_order(uncased_vocab_file):
    released = Vocab.from_file(uncased_vocab_file).tokens
    assert reserved_tokens(994) == released[:999]
    layout = reserved_tokens(994)
    assert (layout[0], layout[1], layout[100], layout[101], layout[102], layout[103], layout[104]) == (
        "[PAD]", "[unused0]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[unused99]"
    )
    assert reserved_tokens(3) == ["[PAD]", "[unused0]", "[unused1]", "[unused2]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


@pytest.fixture(scope="module")
def small_uncased(tmp_path_factory):
    path = tmp_path_factory.mktemp("vocab") / "vocab.txt"
    tokens = learn_vocabulary(CORPUS, vocab_size=160, num_unused=5, lower_thresh=1)
    path.write_text("".join(t + "\n" for t in tokens), encoding="utf-8")
    return str(path), tokens


def test_learned_vocabulary_covers_the_corpus_with_word_pieces(small_uncased):
    path, tokens = small_uncased
    assert len(tokens) <= 160 and len(set(tokens)) == len(tokens)
    vocab = Vocab.from_file(path)
    assert (vocab.pad_id, vocab.unk_id, vocab.cls_id, vocab.sep_id, vocab.mask_id) == (0, 6, 7, 8, 9)
    assert any(t.startswith("##") for t in tokens)
    tokenizer = FullTokenizer(path, do_lower_case=True)
    for line in open(CORPUS, encoding="utf-8"):
        assert "[UNK]" not in tokenizer.tokenize(line), line
    assert not any(c.isupper() for t in tokens if not t.startswith("[") for c in t)


def test_cased_vocabulary_keeps_capitals_and_words_split_as_our_tokenizer_does(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("The ﬁne Café.\nÉcole ﬁnale THE end.\n" * 5, encoding="utf-8")
    cased = learn_vocabulary(str(corpus), vocab_size=100, do_lower_case=False, num_unused=0, lower_thresh=1)
    assert {"The", "THE", "ﬁ", "é", "."} <= set(cased)
    uncased = learn_vocabulary(str(corpus), vocab_size=100, do_lower_case=True, num_unused=0, lower_thresh=1)
    # Lower-cased with accents stripped, but no NFKC folding: the ligature stays one character.
    assert {"the", "ﬁ", "cafe", "e"} <= set(uncased) and "é" not in uncased and "T" not in uncased


def test_command_line_writes_a_vocab_file(tmp_path):
    output = tmp_path / "vocab.txt"
    result = warm_python.run(
        [
            sys.executable,
            os.path.join(ROOT, "build_vocab.py"),
            f"--input_file={CORPUS}",
            f"--output_file={output}",
            "--vocab_size=200",
            "--num_unused=2",
            "--lower_thresh=1",
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    assert Vocab.from_file(str(output)).tokens[:7] == ["[PAD]", "[unused0]", "[unused1]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def test_missing_corpus_is_a_clear_error(tmp_path):
    from data.pretraining.corpus_reader import CorpusError

    with pytest.raises(CorpusError, match="absent.txt"):
        learn_vocabulary(str(tmp_path / "absent.txt"), vocab_size=2000)


def test_vocabulary_equals_tensorflow_texts_bert_vocab_from_dataset(tmp_path):
    """The learner fed our counts gives the vocabulary of tensorflow-text's own entry point
    (its TF basic tokenizer over a dataset of our words), token for token."""
    import tensorflow as tf
    from tensorflow_text.tools.wordpiece_vocab.bert_vocab_from_dataset import bert_vocab_from_dataset

    from data.text.tokenization import BasicTokenizer

    corpus = tmp_path / "corpus.txt"
    with open(CORPUS, encoding="utf-8") as f:
        corpus.write_text(f.read() + "Ünïcödé naïve café — 東京 “quotes” x² ﬁne\n" * 3, encoding="utf-8")
    words = [BasicTokenizer(True).tokenize(line) for line in open(corpus, encoding="utf-8")]
    dataset = tf.data.Dataset.from_generator(lambda: iter(words), output_signature=tf.TensorSpec([None], tf.string))
    for size, thresh in ((160, 1), (400, 2)):
        expected = bert_vocab_from_dataset(dataset, size, reserved_tokens(5), {"lower_case": False},
                                           {"lower_thresh": thresh})[:size]
        assert learn_vocabulary(str(corpus), vocab_size=size, num_unused=5, lower_thresh=thresh) == expected


def test_a_corpus_without_words_is_a_clear_error(tmp_path):
    from data.pretraining.corpus_reader import CorpusError

    (tmp_path / "blank.txt").write_text("\n  \n\t\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="no words in .*blank.txt"):
        learn_vocabulary(str(tmp_path / "blank.txt"), vocab_size=2000)
