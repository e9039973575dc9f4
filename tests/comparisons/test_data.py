"""The comparison's data: the held-out fifth of a corpus, the next-sentence-choice
set built from it, and the fixed task subsets in their runners' layouts."""

import json
import os

import pytest

from comparisons import corpus, task_data
from tasks.classification.glue_readers import GlueReader
from tasks.tagging.conll_reader import read_tagged_file
from tests.conftest import FIXTURES

SENTENCES = [f"Sentence number {i} of document {d} has enough words." for d in range(40) for i in range(3)]


def write_corpus(path):
    blocks = ["\n".join(SENTENCES[3 * d:3 * d + 3]) for d in range(40)]
    path.write_text("\n\n".join(blocks) + "\n\n\n", encoding="utf-8")
    return str(path)


def test_a_users_corpus_holds_out_a_fixed_fifth_by_checksum(tmp_path):
    documents = list(corpus.user_corpus(write_corpus(tmp_path / "corpus.txt")))
    assert [d.sentences for d in documents] == [SENTENCES[3 * d:3 * d + 3] for d in range(40)]
    held = [d for d in documents if d.held]
    assert 0 < len(held) < 20
    again = list(corpus.user_corpus(write_corpus(tmp_path / "again.txt")))
    assert [d.held for d in again] == [d.held for d in documents]
    counts = corpus.write_documents(str(tmp_path / "kept.txt"), [d for d in documents if not d.held])
    assert counts["documents"] == 40 - len(held) and counts["sentences"] == 3 * counts["documents"]
    assert (tmp_path / "kept.txt").read_text(encoding="utf-8").count("\n\n") == counts["documents"]


def test_an_empty_corpus_is_an_error_naming_the_file(tmp_path):
    (tmp_path / "empty.txt").write_text("\n\n", encoding="utf-8")
    with pytest.raises(ValueError, match="empty.txt: no documents"):
        list(corpus.user_corpus(str(tmp_path / "empty.txt")))


def test_next_sentence_choice_draws_distractors_from_the_context_document_and_splits_by_document(tmp_path):
    long = [f"Line {i} of long document {d} has enough words." for d in range(30) for i in range(8)]
    documents = [corpus.Document([long[8 * d:8 * d + 8]], held=True) for d in range(30)]
    counts = corpus.write_next_sentence_choice(str(tmp_path / "set"), documents, 20, 10, seed=1)
    splits = {name: [json.loads(line) for line in (tmp_path / "set" / f"{name}.jsonl").open(encoding="utf-8")]
              for name in ("train", "dev")}
    assert [len(splits["train"]), len(splits["dev"])] == [20, 10] and counts == {"train": 20, "dev": 10}
    document_of = {s: d for d in range(30) for s in long[8 * d:8 * d + 8]}
    contexts = {name: {document_of[e["context"]] for e in examples} for name, examples in splits.items()}
    assert not contexts["train"] & contexts["dev"]
    for example in splits["train"] + splits["dev"]:
        following = example["endings"][example["label"]]
        assert long.index(following) == long.index(example["context"]) + 1
        assert {document_of[e] for e in example["endings"]} == {document_of[example["context"]]}
        assert len(example["endings"]) == corpus.NUM_CHOICES


def test_glue_subsets_keep_the_header_and_byte_order_mark_and_read_as_glue(tmp_path):
    counts = task_data.glue_subset(os.path.join(FIXTURES, "glue_mrpc"), str(tmp_path), 3, 2, seed=5)
    assert counts == {"train": 3, "dev": 2}
    with open(os.path.join(FIXTURES, "glue_mrpc", "train.tsv"), "rb") as f:
        rows = f.read().split(b"\n")
    written = (tmp_path / "train.tsv").read_bytes().split(b"\n")
    assert written[0] == rows[0] and written[0].startswith(b"\xef\xbb\xbf")
    assert set(written[1:-1]) <= set(rows[1:])
    assert len(GlueReader("MRPC", str(tmp_path)).read("train").examples) == 3
    again = tmp_path / "again"
    task_data.glue_subset(os.path.join(FIXTURES, "glue_mrpc"), str(again), 3, 2, seed=5)
    assert (again / "train.tsv").read_bytes() == (tmp_path / "train.tsv").read_bytes()


def words_and_tags(path):
    return [(s.words, s.tags) for s in read_tagged_file(path)]


def test_conll_subsets_are_seeded_samples_of_whole_sentences_in_file_order(tmp_path):
    source = os.path.join(FIXTURES, "conll_tiny")
    full = words_and_tags(os.path.join(source, "train.txt"))
    samples = {}
    for seed in range(6):
        counts = task_data.conll_subset(source, str(tmp_path / str(seed)), 3, 2, seed)
        assert counts == {"train": 3, "dev": 2}
        written = words_and_tags(str(tmp_path / str(seed) / "train.txt"))
        positions = [full.index(sentence) for sentence in written]
        assert positions == sorted(positions) and len(set(positions)) == 3
        assert "-DOCSTART-" not in (tmp_path / str(seed) / "train.txt").read_text(encoding="utf-8")
        samples[seed] = positions
    assert len({tuple(p) for p in samples.values()}) > 1  # not the head of the file whatever the seed
    task_data.conll_subset(source, str(tmp_path / "again"), 3, 2, 4)
    assert (tmp_path / "again" / "train.txt").read_bytes() == (tmp_path / "4" / "train.txt").read_bytes()
    everything = task_data.conll_subset(source, str(tmp_path / "all"), 10 ** 6, 10 ** 6, 0)
    assert everything["train"] == len(full) and words_and_tags(str(tmp_path / "all" / "train.txt")) == full


def test_conll_samples_split_sentences_as_the_reader_does(tmp_path):
    source = tmp_path / "train.txt"
    source.write_bytes(b"-DOCSTART- -X- O O\r\n\r\nA DT O\r\nb NN B-LOC\r\n \t\r\nC NN O\r\n"
                       b"-DOCSTART- -X- O O\r\nd VB O\r\n\r\n\r\ne NN B-PER")
    assert task_data.sample_sentences(str(source), str(tmp_path / "all.txt"), 10, 0) == 4
    assert words_and_tags(str(tmp_path / "all.txt")) == words_and_tags(str(source))


def test_squad_is_split_by_article(tmp_path):
    counts = task_data.squad_split(os.path.join(FIXTURES, "squad_v1_tiny.json"), str(tmp_path), 0.5, seed=3)
    titles = {split: [a["title"] for a in json.loads((tmp_path / f"{split}.json").read_text())["data"]]
              for split in ("train", "dev")}
    assert len(titles["train"]) == len(titles["dev"]) == 1 and titles["train"] != titles["dev"]
    assert counts["train"] > 0 and counts["dev"] > 0
