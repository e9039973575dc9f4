"""ELMo's pretraining data: the vocabulary file (read with errors naming the
file and line, built from a corpus), and the windows our writer and reader
give against the original's `bilm/data.py` (`_get_batch` over the same
sentences, forward and reversed, through its `UnicodeCharsVocabulary`), id
for id and character for character; bad input named."""

import numpy as np
import pytest
import tensorflow as tf

from data.pretraining.corpus_reader import CorpusError
from data.pretraining.records_metadata import RecordLayoutError
from data.pretraining.writer import write_pretraining_data
from families.elmo.characters import split_words
from families.elmo.pretraining import features as E
from families.elmo.pretraining.chunks import ELMoChunkProcessor, ELMoDataConfig
from families.elmo.pretraining.dataset import elmo_pretraining_dataset
from families.elmo.pretraining.vocabulary import (LMVocabulary, VocabularyError, count_words,
                                                  vocabulary_words, write_vocabulary)
from tests.families.elmo.original_data import original_data_module

BATCH, STEPS = 3, 5
WORDS = ["the", "cat", "sat", "on", "mat", "a", "dog", "ran", "Ünïcödé", "東京", "x" * 60]


def write_corpus(path, seed=0):
    """Two documents of sentences of 1 to 12 words (some seen once, so <UNK>
    with characters of their own), punctuation split off as words."""
    rng = np.random.default_rng(seed)
    documents = []
    for _ in range(2):
        lines = []
        for _ in range(12):
            words = [WORDS[i] if i < len(WORDS) else f"rare{rng.integers(1000)}"
                     for i in rng.integers(0, len(WORDS) + 2, rng.integers(1, 13))]
            lines.append(" ".join(words) + rng.choice(["", ".", " !", ", ok"]))
        documents.append("\n".join(lines))
    path.write_text("\n\n".join(documents) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("elmo_data")
    text = write_corpus(root / "corpus.txt")
    vocab_file = str(root / "vocab.txt")
    with open(text, encoding="utf-8") as f:
        counts = count_words([[line for line in f if line.strip()]])
    write_vocabulary(vocabulary_words(counts, min_count=2), vocab_file)
    records = str(root / "elmo.tfrecord")
    write_pretraining_data(text, [records], vocab_file, ELMoDataConfig(BATCH, STEPS),
                           processor_class=ELMoChunkProcessor, log_every_seconds=1e9)
    return {"root": root, "text": text, "vocab": vocab_file, "records": records}


def original_batches(text, vocab_file):
    """The original's training batches of the corpus's sentences (our words,
    joined by spaces, as its corpus is tokenized), forward and backward."""
    data = original_data_module()
    vocab = data.UnicodeCharsVocabulary(vocab_file, 50, validate_file=True)
    with open(text, encoding="utf-8") as f:
        sentences = [" ".join(split_words(line)) for line in f if line.strip()]

    def stream(reverse):
        for sentence in sentences:
            if reverse:
                sentence = " ".join(sentence.split()[::-1])
            yield vocab.encode(sentence, reverse), vocab.encode_chars(sentence, reverse)

    return list(zip(data._get_batch(stream(False), BATCH, STEPS, 50),
                    data._get_batch(stream(True), BATCH, STEPS, 50)))


def test_windows_are_the_originals_batches(corpus):
    theirs = original_batches(corpus["text"], corpus["vocab"])
    ours = list(elmo_pretraining_dataset(corpus["records"], BATCH, STEPS, LMVocabulary.from_file(corpus["vocab"]),
                                         max_characters=50))
    assert len(ours) == len(theirs) >= 4
    unk = LMVocabulary.from_file(corpus["vocab"]).unk
    assert any((batch[E.TOKEN_IDS] == unk).numpy().any() for batch in ours)
    for k, (batch, (forward, backward)) in enumerate(zip(ours, theirs)):
        for suffix, original in (("", forward), ("_reverse", backward)):
            np.testing.assert_array_equal(batch[E.TOKEN_IDS + suffix], original["token_ids"], err_msg=f"{k}{suffix}")
            np.testing.assert_array_equal(batch[E.NEXT_TOKEN_ID + suffix], original["next_token_id"])
            np.testing.assert_array_equal(batch[E.TOKENS_CHARACTERS + suffix], original["tokens_characters"] + 1)
        np.testing.assert_array_equal(batch["row_number"], np.arange(k * BATCH, (k + 1) * BATCH))


def test_token_model_batches_have_no_characters(corpus):
    batch = next(iter(elmo_pretraining_dataset(corpus["records"], BATCH, STEPS,
                                               LMVocabulary.from_file(corpus["vocab"]))))
    assert E.TOKENS_CHARACTERS not in batch and batch[E.TOKEN_IDS].shape == (BATCH, STEPS)


def test_vocabulary_is_specials_then_most_frequent_first():
    counts = count_words([["b a c , a", "c a b"], ["d"]])
    assert vocabulary_words(counts) == ["<S>", "</S>", "<UNK>", "a", "b", "c", ",", "d"]
    assert vocabulary_words(counts, min_count=2) == ["<S>", "</S>", "<UNK>", "a", "b", "c"]
    assert vocabulary_words(counts, max_size=5) == ["<S>", "</S>", "<UNK>", "a", "b"]


@pytest.mark.parametrize("lines, error", [
    (["<S>", "</S>", "<UNK>", "the", "", "cat"], ":5: empty line"),
    (["<S>", "</S>", "<UNK>", "the cat"], ":4: 'the cat' holds whitespace"),
    (["<S>", "</S>", "<UNK>", "the", "the"], ":5: 'the' already on line 4"),
    (["<S>", "the"], ": no </S>, <UNK> line"),
], ids=["empty", "whitespace", "duplicate", "specials"])
def test_vocabulary_errors_name_the_file_and_line(tmp_path, lines, error):
    path = tmp_path / "vocab.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(VocabularyError, match=f"^{path}{error}"):
        LMVocabulary.from_file(str(path))
    path.write_bytes(b"<S>\n</S>\n<UNK>\n\xff\n")
    with pytest.raises(VocabularyError, match=f"^{path}:4: invalid UTF-8"):
        LMVocabulary.from_file(str(path))


def test_reader_refuses_records_of_other_settings_naming_them(corpus, tmp_path):
    vocab = LMVocabulary.from_file(corpus["vocab"])
    with pytest.raises(RecordLayoutError, match=f"--unroll_steps=6 but {corpus['records']} was written with "
                                                f"unroll_steps=5"):
        elmo_pretraining_dataset(corpus["records"], BATCH, 6, vocab)
    other = tmp_path / "vocab.txt"
    other.write_text(open(corpus["vocab"], encoding="utf-8").read() + "extra\n", encoding="utf-8")
    with pytest.raises(RecordLayoutError, match="sha1 of --vocab_file=.* but .* was written with vocab_sha1="):
        elmo_pretraining_dataset(corpus["records"], BATCH, STEPS, LMVocabulary.from_file(str(other)))
    bert = str(tmp_path / "bert.tfrecord")
    with tf.io.TFRecordWriter(bert) as writer:
        writer.write(tf.train.Example(features=tf.train.Features(feature={"input_ids": tf.train.Feature(
            int64_list=tf.train.Int64List(value=[1, 2]))})).SerializeToString())
    with pytest.raises(RecordLayoutError, match=f"{bert}: feature 'token_ids' is missing"):
        elmo_pretraining_dataset(bert, BATCH, STEPS, vocab)


def test_writer_names_the_line_of_invalid_utf8(corpus, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"the cat sat\n\nthe \xff dog\n")
    with pytest.raises(CorpusError, match=f"{bad}:3: invalid UTF-8"):
        write_pretraining_data(str(bad), [str(tmp_path / "out.tfrecord")], corpus["vocab"],
                               ELMoDataConfig(BATCH, STEPS), processor_class=ELMoChunkProcessor)
    assert not (tmp_path / "out.tfrecord").exists()
