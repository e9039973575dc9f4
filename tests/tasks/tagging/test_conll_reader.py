"""CoNLL-2003 and generic token/tag files: documents, sentence breaks, IOB1/IOB2,
plain tag sets, errors."""

import os
import re

import pytest

from tasks.tagging.conll_reader import (TaggedFileError, check_labels, labels_from_sentences,
                                        read_tagged_file, to_iob2)
from tests.conftest import FIXTURES, shared_path

TINY = os.path.join(FIXTURES, "conll_tiny")


def _write(tmp_path, text, name="train.txt"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return str(path)


def test_iob1_file_reads_as_iob2_with_documents_and_extra_columns():
    sentences = read_tagged_file(os.path.join(TINY, "train.txt"))
    assert len(sentences) == 6
    first = sentences[0]
    assert first.words[:3] == ("EU", "rejects", "German")
    assert first.tags[:3] == ("B-ORG", "O", "B-MISC")  # IOB1 I-ORG opens a chunk
    assert first.where(2) == f"{TINY}/train.txt:5"
    assert sentences[1].tags == ("B-PER", "I-PER")
    assert [s.document for s in sentences] == [1, 1, 1, 1, 2, 2]
    assert sentences[5].tags[3:6] == ("B-PER", "I-PER", "I-PER")


def test_control_and_zero_width_tokens_stay_tokens():
    sentences = read_tagged_file(os.path.join(TINY, "dev.txt"))
    words = sentences[-1].words
    assert words[:4] == ("Zero\u200bwidth", "\u200b", "Hans", "\x07")
    # I-PER after O opens a chunk: IOB2 makes it B-PER.
    assert sentences[-1].tags[2:5] == ("B-PER", "O", "B-PER")


def test_to_iob2_handles_iob1_iob2_and_a_mix():
    assert to_iob2(["I-PER", "I-PER", "B-PER", "I-LOC", "O", "I-LOC", "B-LOC", "I-LOC"]) == [
        "B-PER", "I-PER", "B-PER", "B-LOC", "O", "B-LOC", "B-LOC", "I-LOC"]
    assert to_iob2([]) == []


def test_blank_lines_and_docstart_without_blank_separate_sentences(tmp_path):
    path = _write(tmp_path, "\n\na O\nb B-X\n\n\n\nc I-X\n-DOCSTART- -X- O\nd O\n\r\n")
    sentences = read_tagged_file(path)
    assert [s.words for s in sentences] == [("a", "b"), ("c",), ("d",)]
    assert [s.tags for s in sentences] == [("O", "B-X"), ("B-X",), ("O",)]
    assert [s.document for s in sentences] == [0, 0, 1]
    assert [s.first_line for s in sentences] == [3, 8, 10]


def test_generic_file_with_tag_column_and_tabs(tmp_path):
    path = _write(tmp_path, "\ufeffParis\tB-LOC\tNNP\nis\tO\tVBZ\n")
    sentences = read_tagged_file(path, tag_column=1)
    assert sentences[0].words == ("Paris", "is") and sentences[0].tags == ("B-LOC", "O")


@pytest.mark.parametrize("text, column, message", [
    ("a O\nlonely\n", -1, ":2: expected `word ... tag`"),
    ("a O\nb NNP\n", -1, ":2: tag 'NNP' is not IOB"),
    ("a O\nb E-PER\n", -1, ":2: tag 'E-PER' is not IOB"),
    ("a O\nb B-\n", -1, ":2: tag 'B-' is not IOB"),
    ("a NN B-X\nb O\n", 2, ":2: no tag column 2 in 2 columns"),
    ("a O\n", 0, ":1: tag column 0 is the word column"),
    (b"a O\n\xff O\n", -1, ":2: not valid UTF-8"),
])
def test_bad_lines_name_file_and_line(tmp_path, text, column, message):
    path = _write(tmp_path, text)
    with pytest.raises(TaggedFileError, match=re.escape(path + message)):
        read_tagged_file(path, tag_column=column)


def test_labels_from_data_and_checked_against_a_flag():
    sentences = read_tagged_file(os.path.join(TINY, "train.txt"))
    labels = labels_from_sentences(sentences)
    assert labels == ["O", "B-LOC", "I-LOC", "B-MISC", "I-MISC", "B-ORG", "I-ORG", "B-PER", "I-PER"]
    check_labels(sentences, labels)
    with pytest.raises(TaggedFileError, match=r"train\.txt:3: tag 'B-ORG' is not one of"):
        check_labels(sentences, ["O", "B-PER", "I-PER"])


def test_a_plain_tag_set_reads_any_tag_as_it_is_and_its_labels_are_sorted(tmp_path):
    path = _write(tmp_path, "Paris NNP I-NP\nis VBZ B-\n\nI PRP I-NP\n")
    sentences = read_tagged_file(path, tag_column=1, scheme="tags")
    assert [s.tags for s in sentences] == [("NNP", "VBZ"), ("PRP",)]
    assert labels_from_sentences(sentences, "tags") == ["NNP", "PRP", "VBZ"]
    assert read_tagged_file(path, scheme="tags")[0].tags == ("I-NP", "B-")  # not made IOB2
    with pytest.raises(TaggedFileError, match=re.escape(path + ":1: tag 'NNP' is not IOB")):
        read_tagged_file(path, tag_column=1)
    with pytest.raises(ValueError, match="tag scheme 'pos' is not one of"):
        read_tagged_file(path, scheme="pos")


def test_conll_chunk_column_reads_as_iob2_chunks():
    sentences = read_tagged_file(os.path.join(TINY, "train.txt"), tag_column=2)
    assert sentences[0].tags[:5] == ("B-NP", "B-VP", "B-NP", "I-NP", "B-VP")  # IOB1: I-NP I-VP I-NP I-NP I-VP
    assert labels_from_sentences(sentences) == [
        "O", "B-ADVP", "I-ADVP", "B-NP", "I-NP", "B-PP", "I-PP", "B-VP", "I-VP"]


def test_shared_conll2003_train_counts():
    sentences = read_tagged_file(shared_path("conll2003", "train.txt"))
    assert len(sentences) == 14041
    assert sum(len(s.words) for s in sentences) == 203621
    assert len({s.document for s in sentences}) == 946
    chunks = sum(t.startswith("B-") for s in sentences for t in s.tags)
    assert chunks == 23499  # 7140 LOC + 3438 MISC + 6321 ORG + 6600 PER


@pytest.mark.parametrize("text", ["", "\n\n  \n", "-DOCSTART- -X- -X- O\n\n"])
def test_a_file_without_sentences_is_an_error_naming_it(tmp_path, text):
    path = _write(tmp_path, text)
    with pytest.raises(TaggedFileError, match=re.escape(path) + ": no examples"):
        read_tagged_file(path)
