"""The pretraining corpus every system shares, with its held-out part.

Documents keep their boundaries (next-sentence prediction and the permutation
LM's segments need them), one sentence per line, a blank line between
documents: the input of every family's data writer. Sources: the installed
Python's standard-library docstrings (always there), the unlabelled text of
the tasks' training splits (at this scale in-domain text matters more than
size: Krishna et al. 2022, "Downstream Datasets Make Surprisingly Good
Pretraining Corpora"; never their dev or test files), WikiText articles (given
`--wikitext_files`), or instead of all a user's own corpus (`--corpus`,
already in that format). A fixed fifth of the documents is held out: the
standard library's held-out modules (`demo.stdlib_corpus.held_out`), and by a
checksum of its first sentence a WikiText article or a user's document; task
text is never held out, and loses any sentence that held-out text also has.
Held-out text scores pretraining and makes the built probing sets
(`comparisons.probing_sets`, the next-sentence-choice set); no system is
pretrained on it.
"""

import os
import random
import zlib

from tasks.classification.glue_readers import GlueReader
from tasks.tagging.conll_reader import read_tagged_file
from demo.stdlib_corpus import documents as stdlib_documents
from demo.stdlib_corpus import held_out as held_out_module
from scripts.make_next_sentence_choice_set import make_examples, read_articles, split_articles, write_jsonl
from utils.files import atomic_output

NUM_CHOICES = 4
MIN_WORDS = 5  # shorter sentences are neither contexts nor endings
CONLL_TASKS = {"ner", "pos", "chunk"}  # tasks of CoNLL-2003's files
PHRASES_PER_DOCUMENT = 10  # SST-2's phrases grouped into documents of about a paragraph (see `sst_2`)


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


def maximal_phrases(phrases):
    """The phrases not contained, as a contiguous run of words, in another one
    (duplicates once), in their first order. SST-2's train file holds every
    phrase of each sentence's parse tree: a corpus of all of them would repeat
    each word about five times. Longest first, so only maximal phrases are cut
    into their sub-phrases."""
    unique = list(dict.fromkeys(" ".join(p.split()) for p in phrases if p.strip()))
    known, contained = set(unique), set()
    for phrase in sorted(unique, key=lambda p: -len(p.split())):
        if phrase in contained:
            continue
        words = phrase.split()
        spans = (" ".join(words[start:start + length])
                 for length in range(1, len(words)) for start in range(len(words) - length + 1))
        contained.update(span for span in spans if span in known)
    return [p for p in unique if p not in contained]


def sst_2(task_dir):
    """SST-2's maximal training phrases (`maximal_phrases`) in documents of
    `PHRASES_PER_DOCUMENT`, in the train file's order. SST-2 has no documents
    (a phrase is a snippet of one review; the file is shuffled). As documents
    of one sentence each, every next-sentence pair they gave had a random
    second segment, so "segment A is an SST-2 phrase" predicted the label
    (72% of the pairs were random on a corpus of mostly SST-2); in groups they
    give pairs of unrelated phrases marked next as often as random, as the
    other sources do."""
    phrases = maximal_phrases(e.text_a for e in GlueReader("SST-2", task_dir).read("train").examples)
    for start in range(0, len(phrases), PHRASES_PER_DOCUMENT):
        yield Document([phrases[start:start + PHRASES_PER_DOCUMENT]], held=False)


def sentence_pairs(task_name, task_dir):
    """A GLUE pair task's training pairs (STS-B, MRPC), each a two-sentence document."""
    for example in GlueReader(task_name, task_dir).read("train").examples:
        yield Document([[" ".join(example.text_a.split()), " ".join(example.text_b.split())]], held=False)


def conll(data_dir):
    """CoNLL-2003's training documents (split at `-DOCSTART-`), a sentence the
    words of one blank-line block."""
    by_document = {}
    for sentence in read_tagged_file(os.path.join(data_dir, "train.txt")):
        by_document.setdefault(sentence.document, []).append(" ".join(sentence.words))
    for sentences in by_document.values():
        yield Document([sentences], held=False)


def task_text(task_names, glue_data_dir=None, conll_data_dir=None):
    """The training text of the tasks named, of those whose data is given;
    CoNLL-2003's once for all its tasks."""
    names = set(task_names)
    if glue_data_dir and "sst_2" in names:
        yield from sst_2(os.path.join(glue_data_dir, "SST-2"))
    for name, task in (("sts_b", "STS-B"), ("mrpc", "MRPC")):
        if glue_data_dir and name in names:
            yield from sentence_pairs(task, os.path.join(glue_data_dir, task))
    if conll_data_dir and names & CONLL_TASKS:
        yield from conll(conll_data_dir)


def _comparable(sentence):
    """A sentence as compared with held-out text: case and spacing (tokenized
    or not) make no difference."""
    return "".join(sentence.lower().split())


def drop_held_out_sentences(documents):
    """(documents, sentences dropped): the pretrained documents without any
    sentence that held-out text also has, so no system is pretrained on text
    it is scored on; a document left empty is dropped."""
    held = {_comparable(s) for d in documents if d.held for s in d.sentences}
    kept, dropped = [], 0
    for document in documents:
        if document.held:
            kept.append(document)
            continue
        paragraphs = [[s for s in paragraph if _comparable(s) not in held] for paragraph in document.paragraphs]
        paragraphs = [p for p in paragraphs if p]
        dropped += len(document.sentences) - sum(map(len, paragraphs))
        if paragraphs:
            kept.append(Document(paragraphs, held=False))
    return kept, dropped


def write_documents(path, documents, lower=False):
    """The data writers' format, lower-cased when `lower` (the comparison's one
    casing policy: GPT's text pipeline lower-cases and cannot be cased);
    returns (documents, sentences, bytes)."""
    count = sentences = size = 0
    with atomic_output(path) as out:
        for document in documents:
            block = "\n".join(document.sentences) + "\n\n"
            block = block.lower() if lower else block
            out.write(block)
            count, sentences, size = count + 1, sentences + len(document.sentences), size + len(block.encode())
    return {"documents": count, "sentences": sentences, "bytes": size}


def write_next_sentence_choice(directory, documents, num_train, num_dev, seed, same_document=True):
    """`train.jsonl` and `dev.jsonl` of `scripts/make_next_sentence_choice_set.py`'s
    layout from held-out documents: the true next sentence of a context among
    three from the context's own document (not its neighbours: distractors
    from other documents let topic and genre decide, which is what
    next-sentence prediction trains; `same_document=False` draws them so), train
    and dev from different documents; returns the example counts."""
    rng = random.Random(seed)
    train, dev = split_articles([d.paragraphs for d in documents], num_dev / (num_train + num_dev), rng)
    for name, part, count in (("train", train, num_train), ("dev", dev, num_dev)):
        write_jsonl(f"{directory}/{name}.jsonl",
                    make_examples(part, count, NUM_CHOICES, MIN_WORDS, rng, name, same_article=same_document))
    return {"train": num_train, "dev": num_dev}
