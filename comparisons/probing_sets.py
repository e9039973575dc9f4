"""The word-order probing set built from held-out documents: bigram shift
(SentEval's BShift, Conneau et al. 2018).

Half the sentences have two adjacent words swapped (`inverted`), the others are
left as they are (`original`). Nothing on the surface tells them apart, so a
system must know which word orders English allows: sentences are lower-cased
and lose their punctuation (90% of the originals of a word-order set ending in
`.` against 10% of shuffled ones is a cue a pooled vector finds without
knowing any English); the swap moves neither the first nor the last word, so
how a sentence starts and ends says nothing; both classes hold the same bags
of words. WikiText's `<unk>` is kept as a word, as it is in the pretraining
corpus: dropping its sentences would leave a third of them. Train and dev come
from different documents and share no sentence. TSV with a header
(`sentence<TAB>label`), as `run_classifier.py --task_name=custom
--text_a_column=sentence` reads it.
"""

import random

from utils.files import atomic_output

LABELS = ("original", "inverted")
MIN_WORDS, MAX_WORDS = 6, 30  # long enough for an inner swap, short enough to stay whole
UNKNOWN = "<unk>"  # WikiText's rare-word token, a word here


def words(sentence):
    """The lower-cased words of `sentence`: punctuation at a word's edges
    stripped (text need not be tokenized), words of punctuation alone dropped,
    `<unk>` a word of its own (WikiText's `<unk>-<unk>`)."""
    kept = []
    for token in sentence.lower().replace(UNKNOWN, f" {UNKNOWN} ").split():
        token = token if token == UNKNOWN else _strip_punctuation(token)
        if any(c.isalnum() for c in token):
            kept.append(token)
    return kept


def _strip_punctuation(token):
    """Without leading and trailing characters that are neither letters, digits
    nor apostrophes (`'s` and `n't` stay words)."""
    start, end = 0, len(token)
    while start < end and not (token[start].isalnum() or token[start] == "'"):
        start += 1
    while end > start and not (token[end - 1].isalnum() or token[end - 1] == "'"):
        end -= 1
    return token[start:end]


def swap_positions(sentence_words):
    """Where a swap of words i and i + 1 changes the sentence and moves neither
    the first nor the last word."""
    return [i for i in range(1, len(sentence_words) - 2) if sentence_words[i] != sentence_words[i + 1]]


def bigram_shift(sentence_words, rng):
    """`sentence_words` with one adjacent pair swapped at a random one of `swap_positions`."""
    i = rng.choice(swap_positions(sentence_words))
    return sentence_words[:i] + [sentence_words[i + 1], sentence_words[i]] + sentence_words[i + 2:]


def usable_sentences(documents):
    """Each document's sentences as `words` lists: MIN_WORDS to MAX_WORDS words
    with somewhere to swap, a sentence seen in an earlier document dropped."""
    seen, by_document = set(), []
    for document in documents:
        kept = []
        for sentence in document.sentences:
            sentence_words = words(sentence)
            text = " ".join(sentence_words)
            if MIN_WORDS <= len(sentence_words) <= MAX_WORDS and swap_positions(sentence_words) and text not in seen:
                seen.add(text)
                kept.append(sentence_words)
        by_document.append(kept)
    return by_document


def split_documents(by_document, num_dev, rng):
    """(train sentences, dev sentences): documents in a seeded order go to dev
    until it holds `num_dev` sentences, the rest to train, so no document
    gives both."""
    order = list(range(len(by_document)))
    rng.shuffle(order)
    train, dev = [], []
    for index in order:
        (dev if len(dev) < num_dev else train).extend(by_document[index])
    return train, dev


def labelled_rows(sentences, count, rng, name):
    """`count` (sentence, label) rows drawn from `sentences`, `count // 2` of
    them inverted."""
    if len(sentences) < count:
        raise ValueError(f"only {len(sentences)} usable sentences for {count} {name} examples")
    chosen = rng.sample(sentences, count)
    inverted = set(rng.sample(range(count), count // 2))
    return [(" ".join(bigram_shift(s, rng) if i in inverted else s), LABELS[i in inverted])
            for i, s in enumerate(chosen)]


def write_word_order(directory, documents, num_train, num_dev, seed):
    """`train.tsv` and `dev.tsv` of the bigram-shift set from held-out
    `documents`; returns the example counts."""
    rng = random.Random(seed)
    train, dev = split_documents(usable_sentences(documents), num_dev, rng)
    for name, part, count in (("train", train, num_train), ("dev", dev, num_dev)):
        with atomic_output(f"{directory}/{name}.tsv") as out:
            out.write("sentence\tlabel\n")
            out.writelines(f"{sentence}\t{label}\n" for sentence, label in labelled_rows(part, count, rng, name))
    return {"train": num_train, "dev": num_dev}
