"""scripts/make_next_sentence_choice_set.py: wikitext articles -> a next-sentence choice set."""

import json
import random

from scripts.make_next_sentence_choice_set import main, make_examples, read_articles
from tasks.multiple_choice.swag_reader import read_multiple_choice_file


def _article(title, topic, paragraphs=2, sentences=4):
    lines = [" \n", f" = {title} = \n", " \n", f" = = History of {topic} = = \n", " \n"]
    for p in range(paragraphs):
        text = " ".join(f"The {topic} fact number {p} @-@ {s} is stated in this sentence ."
                        for s in range(sentences))
        lines += [f" {text} \n", " \n"]
    return lines


def _topic(sentence):
    return sentence.split()[1]


def _fact_number(sentence):
    return sentence.split()[4]


def _wikitext(num_articles=6):
    return [line for a in range(num_articles) for line in _article(f"Article {a}", f"topic{a}")]


def test_articles_paragraphs_and_sentences():
    articles = read_articles(_wikitext(2))
    assert len(articles) == 2
    assert len(articles[0]) == 2 and len(articles[0][0]) == 4  # headings dropped
    assert articles[1][1][3] == "The topic1 fact number 1-3 is stated in this sentence ."


def test_true_next_sentence_among_distractors_from_other_articles():
    articles = read_articles(_wikitext())
    examples = make_examples(articles, 12, 4, 5, random.Random(0), "train")
    for example in examples:
        topic = _topic(example["context"])
        true = example["endings"][example["label"]]
        assert _topic(true) == topic
        paragraph, position = _fact_number(example["context"]).split("-")
        assert _fact_number(true) == f"{paragraph}-{int(position) + 1}"
        others = [e for i, e in enumerate(example["endings"]) if i != example["label"]]
        assert len(others) == 3 and all(_topic(e) != topic for e in others)


def test_writes_train_and_dev_readable_as_multiple_choice(tmp_path):
    corpus = tmp_path / "wiki.txt"
    corpus.write_text("".join(_wikitext(10)))
    main([f"--input_files={corpus}", f"--output_dir={tmp_path}", "--num_train=20",
          "--num_dev=5", "--dev_fraction=0.3"])
    train = read_multiple_choice_file(str(tmp_path / "train.jsonl"))
    dev = read_multiple_choice_file(str(tmp_path / "dev.jsonl"))
    assert (len(train.examples), len(dev.examples)) == (20, 5)
    assert train.num_choices == dev.num_choices == 4 and train.has_labels
    train_topics = {_topic(e.context) for e in train.examples}
    assert not train_topics & {_topic(e.context) for e in dev.examples}  # disjoint articles
    with open(tmp_path / "dev.jsonl", encoding="utf-8") as f:
        assert set(json.loads(f.readline())) == {"id", "context", "endings", "label"}


def test_same_article_distractors_are_neither_the_context_nor_its_neighbours(tmp_path):
    corpus = tmp_path / "wiki.txt"
    corpus.write_text("".join(_wikitext(10)))
    main([f"--input_files={corpus}", f"--output_dir={tmp_path}", "--num_train=20", "--num_dev=5",
          "--dev_fraction=0.3", "--distractors=same_article"])
    for split in ("train", "dev"):
        for example in read_multiple_choice_file(str(tmp_path / f"{split}.jsonl")).examples:
            context = _place_in_article(example.context)
            endings = [_place_in_article(e) for e in example.endings]
            assert endings[example.label] == context + 1
            assert all(_topic(e) == _topic(example.context) for e in example.endings)
            others = {e for n, e in enumerate(endings) if n != example.label}
            assert len(others) == 3 and all(abs(e - context) > 1 for e in others)  # across paragraphs too


def _place_in_article(sentence):
    paragraph, position = map(int, _fact_number(sentence).split("-"))
    return 4 * paragraph + position  # _article's 4 sentences a paragraph
