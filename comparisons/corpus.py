"""The pretraining corpus every system shares, with its held-out part.

Documents keep their boundaries (next-sentence prediction and the permutation
LM's segments need them), one sentence per line, a blank line between
documents: the input of every family's data writer. Sources, in order: the
installed Python's standard-library docstrings (always there), WikiText
articles (given `--wikitext_files`), or instead of both a user's own corpus
(`--corpus`, already in that format). A fixed fifth of the documents is held
out: the standard library's held-out modules (`demo.stdlib_corpus.held_out`,
whose sentences also make the word-order set), and by a checksum of its first
sentence a WikiText article or a user's document. Held-out text scores
pretraining and makes the next-sentence-choice set; no system is pretrained on it.
"""

import random
import zlib

from demo.stdlib_corpus import documents as stdlib_documents
from demo.stdlib_corpus import held_out as held_out_module
from scripts.make_next_sentence_choice_set import make_examples, read_articles, split_articles, write_jsonl
from utils.files import atomic_output

NUM_CHOICES = 4
MIN_WORDS = 5  # shorter sentences are neither contexts nor endings


class Document:
    """Paragraphs of sentences (a docstring or a user's document is one paragraph)."""

    def __init__(self, paragraphs, held):
        self.paragraphs = paragraphs
        self.held = held

    @property
    def sentences(self):
        return [s for paragraph in self.paragraphs for s in paragraph]


def _held_by_checksum(first_sentence):
    return zlib.crc32(first_sentence.encode("utf-8")) % 5 == 0


def stdlib(max_modules=None):
    """Standard-library docstrings of two sentences or more, by module (at most
    `max_modules` of the corpus and as many held out)."""
    counts = {True: 0, False: 0}
    for module, docstrings in stdlib_documents():
        if max_modules is not None and min(counts.values()) >= max_modules:
            return
        held = held_out_module(module)
        docstrings = [d for d in docstrings if len(d) >= 2]
        if not docstrings or (max_modules is not None and counts[held] >= max_modules):
            continue
        counts[held] += 1
        for sentences in docstrings:
            yield Document([sentences], held)


def wikitext(paths):
    """WikiText articles (headings dropped, wikitext's ` @-@ ` joins undone)."""
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for paragraphs in read_articles(f):
                yield Document(paragraphs, _held_by_checksum(paragraphs[0][0]))


def user_corpus(path):
    """Documents of a file in the data writers' format; a document without a
    line of text is an error naming the file."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    blocks = [block.strip("\n").split("\n") for block in text.split("\n\n") if block.strip()]
    if not blocks:
        raise ValueError(f"{path}: no documents (sentences one per line, a blank line between documents)")
    for lines in blocks:
        sentences = [line.strip() for line in lines if line.strip()]
        yield Document([sentences], _held_by_checksum(sentences[0]))


def write_documents(path, documents):
    """The data writers' format; returns (documents, sentences, bytes)."""
    count = sentences = size = 0
    with atomic_output(path) as out:
        for document in documents:
            block = "\n".join(document.sentences) + "\n\n"
            out.write(block)
            count, sentences, size = count + 1, sentences + len(document.sentences), size + len(block.encode())
    return {"documents": count, "sentences": sentences, "bytes": size}


def write_next_sentence_choice(directory, documents, num_train, num_dev, seed):
    """`train.jsonl` and `dev.jsonl` of `scripts/make_next_sentence_choice_set.py`'s
    layout from held-out documents: the true next sentence of a context among
    three from other documents, train and dev from different documents."""
    rng = random.Random(seed)
    train, dev = split_articles([d.paragraphs for d in documents], num_dev / (num_train + num_dev), rng)
    for name, part, count in (("train", train, num_train), ("dev", dev, num_dev)):
        write_jsonl(f"{directory}/{name}.jsonl", make_examples(part, count, NUM_CHOICES, MIN_WORDS, rng, name))
