"""The probing sets built from held-out documents carry no surface cue: bigram
shift swaps one inner adjacent pair of lower-cased, unpunctuated sentences,
half of them; the next-sentence choice draws its wrong endings from the
context's own document, never its neighbours. Train and dev come from
different documents, and a seed fixes both."""

import collections
import json
import random
import string

import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression

from comparisons import corpus, probing_sets
from comparisons.corpus import Document


def pseudo_text(seed, num_documents=60, sentences_per_document=25):
    """Documents of sentences of 4 to 34 Zipf-drawn pseudo-words, capitalized
    and punctuated as prose is (every sentence's bag of words its own), and
    one boilerplate sentence that every document repeats."""
    rng = random.Random(seed)
    vocabulary = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 8))) for _ in range(400)]
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    documents = []
    for d in range(num_documents):
        sentences = []
        for _ in range(sentences_per_document):
            words = rng.choices(vocabulary, weights, k=rng.randint(4, 34))
            words[rng.randrange(len(words))] += rng.choice([",", "", "'s"])
            sentences.append(" ".join([words[0].capitalize(), *words[1:]]) + rng.choice([" .", ".", "?", " ;"]))
        documents.append(Document([sentences + ["See the notes at the end of this page for details."]], held=True))
    return documents


def read_tsv(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "sentence\tlabel"
    return [tuple(line.split("\t")) for line in lines[1:]]


def test_words_are_lower_cased_without_punctuation():
    assert probing_sets.words("The cat's (big) toy, isn't it? -- <unk>-<unk> 1,000 .") == [
        "the", "cat's", "big", "toy", "isn't", "it", "<unk>", "<unk>", "1,000"]


def test_bigram_shift_swaps_one_adjacent_pair_moving_neither_end():
    assert probing_sets.swap_positions("a b b c d e".split()) == [2, 3]  # "b b" would not change
    assert probing_sets.swap_positions("a b b b b c".split()) == []
    rng = random.Random(0)
    for _ in range(200):
        words = [rng.choice("abc") for _ in range(rng.randint(6, 12))]
        if not probing_sets.swap_positions(words):
            continue
        shifted = probing_sets.bigram_shift(words, rng)
        changed = [i for i, (a, b) in enumerate(zip(words, shifted)) if a != b]
        assert len(changed) == 2 and changed[1] == changed[0] + 1
        i = changed[0]
        assert shifted[i:i + 2] == [words[i + 1], words[i]] and 1 <= i and i + 1 <= len(words) - 2


def write_word_order(tmp_path, seed, num_train=400, num_dev=400):
    directory = tmp_path / f"seed{seed}"
    counts = probing_sets.write_word_order(str(directory), pseudo_text(1), num_train, num_dev, seed)
    assert counts == {"train": num_train, "dev": num_dev}
    return {split: read_tsv(directory / f"{split}.tsv") for split in ("train", "dev")}


def test_word_order_rows_are_sentences_of_their_documents_half_shifted(tmp_path):
    rows = write_word_order(tmp_path, seed=3, num_train=401)
    source = {}  # a sentence's sorted words -> (its words, its document)
    for d, document in enumerate(pseudo_text(1)):
        for sentence in document.sentences:
            words = probing_sets.words(sentence)
            source.setdefault(tuple(sorted(words)), (words, d))
    documents = {}
    for split, part in rows.items():
        assert collections.Counter(label for _, label in part) == {
            "inverted": len(part) // 2, "original": len(part) - len(part) // 2}
        documents[split] = set()
        for sentence, label in part:
            words = sentence.split()
            original, document = source[tuple(sorted(words))]
            documents[split].add(document)
            assert 6 <= len(words) <= 30 and sentence == sentence.lower()
            assert not set(sentence) & set(".,?;")
            if label == "original":
                assert words == original
            else:
                assert words[0] == original[0] and words[-1] == original[-1]
                changed = [i for i, (a, b) in enumerate(zip(words, original)) if a != b]
                assert len(changed) == 2 and changed[1] == changed[0] + 1
    assert not documents["train"] & documents["dev"]
    assert not {s for s, _ in rows["train"]} & {s for s, _ in rows["dev"]}


def test_word_order_is_fixed_by_its_seed(tmp_path):
    first = write_word_order(tmp_path, seed=3)
    assert write_word_order(tmp_path / "again", seed=3) == first
    assert write_word_order(tmp_path, seed=4) != first


def test_words_first_last_or_counted_do_not_tell_the_labels(tmp_path):
    """A logistic regression on the bag of words, with the first and last words
    and the length as features of their own, is at chance: 400 dev sentences
    put one standard deviation of chance accuracy at 0.025, so 0.1 is four."""
    rows = write_word_order(tmp_path, seed=3)

    def features(sentence):
        words = sentence.split()
        return " ".join([*words, f"first={words[0]}", f"last={words[-1]}", f"length={len(words)}"])

    vectorizer = CountVectorizer(token_pattern=r"\S+", lowercase=False)
    train = vectorizer.fit_transform(features(s) for s, _ in rows["train"])
    model = LogisticRegression(max_iter=1000).fit(train, [label for _, label in rows["train"]])
    dev = vectorizer.transform(features(s) for s, _ in rows["dev"])
    assert abs(model.score(dev, [label for _, label in rows["dev"]]) - 0.5) < 0.1


def test_word_order_needs_enough_sentences(tmp_path):
    with pytest.raises(ValueError, match="only .* usable sentences for 5000 train examples"):
        probing_sets.write_word_order(str(tmp_path), pseudo_text(1, num_documents=4), 5000, 10, seed=0)


def numbered_documents(num_documents=120):
    """Documents of 3 to 20 sentences that say where they stand; every third
    one too short to be used."""
    rng = random.Random(5)
    return [Document([[f"Document {d} sentence {i} has words enough ." if i % 3 else f"Short {d} {i} ."
                       for i in range(rng.randint(3, 20))]], held=True) for d in range(num_documents)]


def position(sentence):
    words = sentence.split()
    return int(words[1]), int(words[3])


def write_next_sentence(tmp_path, seed, same_document=True):
    directory = tmp_path / f"next{seed}"
    corpus.write_next_sentence_choice(str(directory), numbered_documents(), 150, 50, seed, same_document)
    return {split: [json.loads(line) for line in (directory / f"{split}.jsonl").open(encoding="utf-8")]
            for split in ("train", "dev")}


def test_next_sentence_distractors_come_from_the_same_document_away_from_the_context(tmp_path):
    splits = write_next_sentence(tmp_path, seed=2)
    labels = collections.Counter()
    documents = {}
    for split, examples in splits.items():
        documents[split] = set()
        for example in examples:
            document, i = position(example["context"])
            documents[split].add(document)
            endings = [position(e) for e in example["endings"]]
            assert endings[example["label"]] == (document, i + 1)
            others = [e for n, e in enumerate(endings) if n != example["label"]]
            assert len(set(others)) == 3 and all(d == document and abs(j - i) > 1 for d, j in others)
            labels[example["label"]] += 1
    assert not documents["train"] & documents["dev"]
    # 200 uniform labels: 50 each, a standard deviation of 6.1; 25 is four.
    assert sorted(labels) == [0, 1, 2, 3] and all(abs(count - 50) < 25 for count in labels.values())


def test_next_sentence_is_fixed_by_its_seed_and_keeps_the_other_document_mode(tmp_path):
    first = write_next_sentence(tmp_path, seed=2)
    assert write_next_sentence(tmp_path / "again", seed=2) == first
    assert write_next_sentence(tmp_path, seed=3) != first
    for example in write_next_sentence(tmp_path / "other", seed=2, same_document=False)["dev"]:
        document = position(example["context"])[0]
        assert [position(e)[0] == document for e in example["endings"]].count(True) == 1


def test_next_sentence_needs_enough_pairs_with_same_document_distractors(tmp_path):
    with pytest.raises(ValueError, match="sentence pairs with 3 other sentences of their article"):
        corpus.write_next_sentence_choice(str(tmp_path), numbered_documents(), 1000, 50, 0, same_document=True)
