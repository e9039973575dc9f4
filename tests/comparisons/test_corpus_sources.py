"""The comparison's corpus from the tasks' own training text: SST-2's maximal
phrases, sentence pairs as documents, CoNLL-2003 documents; never a dev or
test file; no sentence that held-out text has; one casing."""

import builtins
import os
import shutil

from comparisons import corpus
from comparisons.corpus import Document
from tests.conftest import FIXTURES

SST_2_ROWS = ["a good film ", "good film", "a good", "film", "goo", "bad", "a bad one", "a good film", "one"]


def glue_dir(tmp_path):
    """A GLUE folder of the fixtures' STS-B and MRPC and a toy SST-2 whose dev
    file holds text no train row has."""
    root = tmp_path / "glue"
    for task in ("STS-B", "MRPC"):
        shutil.copytree(os.path.join(FIXTURES, f"glue_{task.lower()}"), root / task)
    (root / "SST-2").mkdir()
    (root / "SST-2" / "train.tsv").write_text("sentence\tlabel\n" + "".join(f"{r}\t1\n" for r in SST_2_ROWS))
    (root / "SST-2" / "dev.tsv").write_text("sentence\tlabel\nunseen dev sentence\t0\n")
    return str(root)


def sentences(documents):
    return [d.sentences for d in documents]


def test_sst_2_keeps_the_phrases_no_other_row_contains(tmp_path):
    documents = list(corpus.sst_2(os.path.join(glue_dir(tmp_path), "SST-2")))
    # "goo" is inside "good" as characters, not as a word; duplicates come once.
    assert sentences(documents) == [["a good film", "goo", "a bad one"]]
    assert not any(d.held for d in documents)


def test_sst_2_phrases_come_in_documents_that_give_next_segments(tmp_path, monkeypatch):
    """Groups of `PHRASES_PER_DOCUMENT` in file order (the last one shorter), so that
    BERT's pair builder draws a true next segment from them, not only random ones."""
    import random
    from families.bert.pretraining.instances import InstanceBuilder
    monkeypatch.setattr(corpus, "PHRASES_PER_DOCUMENT", 2)
    documents = list(corpus.sst_2(os.path.join(glue_dir(tmp_path), "SST-2")))
    assert sentences(documents) == [["a good film", "goo"], ["a bad one"]]
    monkeypatch.undo()
    phrases = [f"phrase {i} of a review" for i in range(95)]
    (tmp_path / "glue" / "SST-2" / "train.tsv").write_text(
        "sentence\tlabel\n" + "".join(f"{p}\t1\n" for p in phrases))
    documents = list(corpus.sst_2(os.path.join(tmp_path, "glue", "SST-2")))
    assert [len(d.sentences) for d in documents] == [10] * 9 + [5]
    assert [s for d in documents for s in d.sentences] == phrases
    ids = {phrase: [5 + i, 1, 2, 3, 4] for i, phrase in enumerate(phrases)}  # five tokens a phrase
    builder = InstanceBuilder(max_seq_length=23, short_seq_prob=0.0, next_sentence_prediction=True,
                              cls_id=0, sep_id=1)
    instances = builder.build([[ids[s] for s in d.sentences] for d in documents], dupe_factor=20,
                              rng=random.Random(0))
    random_share = sum(i.is_random_next for i in instances) / len(instances)
    # A document's last chunk of one phrase always gets a random next (so above a half: 0.585 here);
    # documents of one phrase each: 1.0.
    assert 0.4 < random_share < 0.7, random_share


def test_pair_tasks_give_two_sentence_documents():
    documents = list(corpus.sentence_pairs("STS-B", os.path.join(FIXTURES, "glue_sts-b")))
    assert sentences(documents)[0] == ["A plane is taking off.", "An air plane is taking off."]
    mrpc = list(corpus.sentence_pairs("MRPC", os.path.join(FIXTURES, "glue_mrpc")))  # header after a byte-order mark
    assert len(mrpc) == 3 and all(len(d.sentences) == 2 for d in mrpc)
    assert mrpc[1].sentences[0] == "Yucaipa owned the chain before selling it in 1998."


def test_conll_documents_split_at_docstart():
    documents = list(corpus.conll(os.path.join(FIXTURES, "conll_tiny")))
    assert len(documents) == 2
    assert sentences(documents)[0] == [
        "EU rejects German call to boycott British lamb .", "Peter Blackburn", "BRUSSELS 1996-08-22",
        "The European Commission said on Thursday it disagreed with German advice ."]
    assert documents[1].sentences[0].startswith("Germany 's representative to the European Union")


def test_task_text_reads_only_training_files_of_the_tasks_named(tmp_path, monkeypatch):
    glue = glue_dir(tmp_path)
    conll = os.path.join(FIXTURES, "conll_tiny")
    opened, real_open = [], builtins.open
    monkeypatch.setattr(builtins, "open", lambda path, *a, **k: opened.append(str(path)) or real_open(path, *a, **k))
    documents = list(corpus.task_text(["sst_2", "sts_b", "ner", "pos"], glue, conll))
    monkeypatch.undo()
    assert sorted(opened) == sorted(os.path.join(d, name) for d, name in (
        (os.path.join(glue, "SST-2"), "train.tsv"), (os.path.join(glue, "STS-B"), "train.tsv"),
        (conll, "train.txt")))  # CoNLL-2003 once for two of its tasks, MRPC not named
    assert len(documents) == 1 + 3 + 2  # SST-2's three phrases in one document
    assert "unseen dev sentence" not in {s for d in documents for s in d.sentences}
    assert list(corpus.task_text(["sst_2", "ner"])) == []  # no data given


def test_held_out_sentences_leave_the_pretrained_documents():
    held = Document([["The held-out sentence ."]], held=True)
    kept = Document([["the  held-out sentence.", "A sentence of its own ."], ["THE HELD-OUT SENTENCE ."]], held=False)
    emptied = Document([["The held-out sentence ."]], held=False)
    documents, dropped = corpus.drop_held_out_sentences([held, kept, emptied])
    assert dropped == 3
    assert sentences(documents) == [["The held-out sentence ."], ["A sentence of its own ."]]
    assert [d.held for d in documents] == [True, False]


def test_the_corpus_can_be_written_lower_cased(tmp_path):
    documents = [Document([["The Cat sat .", "İt ran ."]], held=False), Document([["EU rejects"]], held=False)]
    counts = corpus.write_documents(str(tmp_path / "lower.txt"), documents, lower=True)
    text = (tmp_path / "lower.txt").read_text(encoding="utf-8")
    assert text == "the cat sat .\ni̇t ran .\n\neu rejects\n\n"
    assert counts == {"documents": 2, "sentences": 3, "bytes": len(text.encode())}
    corpus.write_documents(str(tmp_path / "cased.txt"), documents)
    assert (tmp_path / "cased.txt").read_text(encoding="utf-8").startswith("The Cat sat .")
