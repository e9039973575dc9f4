"""What the comparison does to every task's subset whatever its layout:
lower-case the text and never the labels, hold a seeded slice of the train
split out for choosing learning rates (never the dev set), and count the dev
examples a family's tokenizer would cut."""

import json

from comparisons.task_files import CONLL, JSONL, SQUAD, TSV, lower
from comparisons.truncation import truncated_share
from comparisons.downstream import BY_NAME


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_lower_keeps_lengths():
    assert lower("Hello İstanbul ÉCOLE") == "hello İstanbul école"  # "İ".lower() is two characters
    assert len(lower("İİ")) == 2


def test_tsv_text_columns_are_lowered_and_labels_kept(tmp_path):
    write(tmp_path / "train.tsv", "\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\tA\tB\tThe Cat.\tA DOG\n")
    TSV("pair_classification", text_columns=(3, 4), label_column=0).lower(str(tmp_path / "train.tsv"))
    assert (tmp_path / "train.tsv").read_text(encoding="utf-8") == \
        "\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\tA\tB\tthe cat.\ta dog\n"


def test_conll_words_are_lowered_and_tags_kept(tmp_path):
    write(tmp_path / "train.txt", "-DOCSTART- -X- -X- O\n\nEU NNP B-NP B-ORG\nRejects VBZ B-VP O\n\n")
    CONLL(3).lower(str(tmp_path / "train.txt"))
    assert (tmp_path / "train.txt").read_text(encoding="utf-8") == "eu NNP B-NP B-ORG\nrejects VBZ B-VP O\n\n"


def test_jsonl_and_squad_text_is_lowered(tmp_path):
    write(tmp_path / "dev.jsonl", json.dumps({"id": "X-1", "context": "A B", "endings": ["C", "D"], "label": 1}) + "\n")
    JSONL().lower(str(tmp_path / "dev.jsonl"))
    assert json.loads((tmp_path / "dev.jsonl").read_text()) == {"id": "X-1", "context": "a b", "endings": ["c", "d"],
                                                               "label": 1}
    squad = {"version": "1.1", "data": [{"title": "T", "paragraphs": [{"context": "Paris is in France.", "qas": [
        {"id": "q", "question": "Where is Paris?", "answers": [{"text": "France", "answer_start": 12}]}]}]}]}
    write(tmp_path / "dev.json", json.dumps(squad))
    SQUAD().lower(str(tmp_path / "dev.json"))
    paragraph = json.loads((tmp_path / "dev.json").read_text())["data"][0]["paragraphs"][0]
    answer = paragraph["qas"][0]["answers"][0]
    assert paragraph["context"][answer["answer_start"]:][:len(answer["text"])] == answer["text"] == "france"


def test_the_selection_slice_comes_from_train_only_and_is_seeded(tmp_path):
    rows = "".join(f"sentence {i}\t{i % 2}\n" for i in range(50))
    write(tmp_path / "task" / "train.tsv", "sentence\tlabel\n" + rows)
    write(tmp_path / "task" / "dev.tsv", "sentence\tlabel\nthe dev sentence\t1\n")
    files = TSV("classification", text_columns=(0,), label_column=1)
    counts = files.split(str(tmp_path / "task"), str(tmp_path / "selection"), 0.2, seed=3)
    assert counts == {"train": 40, "dev": 10}
    kept = (tmp_path / "selection" / "train.tsv").read_text().splitlines()
    held = (tmp_path / "selection" / "dev.tsv").read_text().splitlines()
    assert kept[0] == held[0] == "sentence\tlabel"
    assert sorted(kept[1:] + held[1:]) == sorted(rows.splitlines())  # the train split, divided
    files.split(str(tmp_path / "task"), str(tmp_path / "again"), 0.2, seed=3)
    assert (tmp_path / "again" / "dev.tsv").read_text().splitlines() == held


def test_conll_is_sliced_by_sentence(tmp_path):
    sentences = [f"w{i} NN B-NP O\nx{i} VB B-VP O" for i in range(10)]
    write(tmp_path / "task" / "train.txt", "-DOCSTART- -X- -X- O\n\n" + "\n\n".join(sentences) + "\n\n")
    counts = CONLL(1).split(str(tmp_path / "task"), str(tmp_path / "selection"), 0.3, seed=1)
    assert counts == {"train": 7, "dev": 3}
    held = (tmp_path / "selection" / "dev.txt").read_text().strip().split("\n\n")
    assert set(held) <= set(sentences)


class Words:
    """A text side of whitespace words with BERT's specials: 2 for one text, 3 for a pair."""

    def encode(self, text):
        return text.split()

    def num_specials(self, ids_b):
        return 2 if ids_b is None else 3


def test_truncation_counts_dev_examples_longer_than_the_sequence(tmp_path):
    write(tmp_path / "dev.tsv", "sentence\tlabel\none two three\t1\none two three four five\t0\n")
    assert truncated_share(BY_NAME["sst_2"], str(tmp_path), Words(), 5) == 0.5  # 3 + 2 fits, 5 + 2 does not
    write(tmp_path / "dev.jsonl", json.dumps({"id": "a", "context": "one two", "endings": ["x", "y z w"],
                                             "label": 0}) + "\n")
    assert truncated_share(BY_NAME["next_sentence"], str(tmp_path), Words(), 7) == 1.0  # 2 + 3 + 3 = 8 > 7
    assert truncated_share(BY_NAME["next_sentence"], str(tmp_path), Words(), 8) == 0.0
