"""Writes the labelled demo set that ships in `assets/demo_word_order/`.

    python -m demo.make_word_order_set

Single sentences from the standard-library modules that the pretraining corpus
holds out (`demo.stdlib_corpus.held_out`), each either `original` or
`scrambled`: the same words in a random order. It is an acceptability
judgement in the spirit of CoLA: both classes have exactly the same bag of
words, so word counts say nothing and a classifier must know how English
docstrings are written, which is what masked-LM pretraining teaches and 160
labelled sentences cannot. Train and dev sentences come from different
modules. The files are TSV with a header (`sentence<TAB>label`), read by
`run_classifier.py --task_name=custom`. The same Python gives the same files
(the shipped ones: CPython 3.11.7).
"""

import os
import random

from demo.stdlib_corpus import documents, held_out
from utils.files import atomic_output

LABELS = ("original", "scrambled")
TRAIN_SENTENCES, DEV_SENTENCES = 160, 1000
MIN_WORDS, MAX_WORDS = 5, 30  # Short enough for the job's 48 tokens, long enough to scramble visibly.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def scramble(sentence, rng):
    """The sentence's words in a random order that differs from the original."""
    words = sentence.split()
    shuffled = list(words)
    while shuffled == words:
        rng.shuffle(shuffled)
    return " ".join(shuffled)


def _rows(modules, count, rng, seen):
    """`count` rows, every other one scrambled, from `modules`' sentences not in `seen`
    (the pretraining corpus repeats some boilerplate verbatim)."""
    sentences = sorted({s for docstrings in modules.values() for d in docstrings for s in d
                        if MIN_WORDS <= len(s.split()) <= MAX_WORDS and s not in seen
                        and len(set(s.split())) > 1})
    if len(sentences) < count:
        raise ValueError(f"only {len(sentences)} usable sentences for {count} examples")
    rng.shuffle(sentences)
    rows = [(scramble(s, rng), LABELS[1]) if i % 2 else (s, LABELS[0])
            for i, s in enumerate(sentences[:count])]
    rng.shuffle(rows)
    return rows


def write_split(path, rows):
    with atomic_output(path) as f:
        f.write("sentence\tlabel\n")
        for row in rows:
            f.write("\t".join(row) + "\n")


def write_set(out):
    """Writes `out/train.tsv` and `out/dev.tsv`."""
    rng = random.Random(2018)
    every = list(documents())
    seen = {s for m, docstrings in every if not held_out(m) for d in docstrings for s in d}
    modules = sorted((m, d) for m, d in every if held_out(m))
    rng.shuffle(modules)
    # About a third of the held-out modules for training, the rest for dev.
    cut = len(modules) // 3
    train, dev = dict(modules[:cut]), dict(modules[cut:])
    write_split(os.path.join(out, "train.tsv"), _rows(train, TRAIN_SENTENCES, rng, seen))
    write_split(os.path.join(out, "dev.tsv"), _rows(dev, DEV_SENTENCES, rng, seen))


def main():
    write_set(os.path.join(ROOT, "assets", "demo_word_order"))


if __name__ == "__main__":
    main()
