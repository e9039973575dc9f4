"""Writes the labelled demo set that ships in `assets/demo_continuation/`.

    python -m demo.make_continuation_set

Sentence pairs from the standard-library modules that the pretraining corpus
holds out (`demo.stdlib_corpus.held_out`): `continues` when the second
sentence follows the first in the same docstring, `unrelated` when it comes
from another module. Train and dev pairs come from different modules, and the
train split is small, so a model must already know which words and phrasings
belong together: the knowledge pretraining's masked-LM and next-sentence
objectives give it. The files are TSV with a header
(`sentence_a<TAB>sentence_b<TAB>label`), read by
`run_classifier.py --task_name=custom`. The same Python gives the same files
(the shipped ones: CPython 3.11.7).
"""

import os
import random

from demo.stdlib_corpus import documents, held_out
from utils.files import atomic_output

LABELS = ("continues", "unrelated")
TRAIN_PAIRS, DEV_PAIRS = 160, 1000
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _pairs(modules, count, rng, seen):
    """`count` pairs, half `continues`, from `modules`: {module: [docstring sentences]}, of
    sentences not in `seen` (the pretraining corpus repeats some boilerplate verbatim)."""
    following = [(m, d[i], d[i + 1]) for m, docstrings in modules.items()
                 for d in docstrings for i in range(len(d) - 1) if not {d[i], d[i + 1]} & seen]
    others = [(m, s) for m, docstrings in modules.items() for d in docstrings for s in d if s not in seen]
    rng.shuffle(following)
    if len(following) < count:
        raise ValueError(f"only {len(following)} consecutive pairs for {count} examples")
    rows = []
    for i, (module, first, second) in enumerate(following[:count]):
        if i % 2:
            second = rng.choice([s for m, s in others if m != module])
        rows.append((first, second, LABELS[i % 2]))
    rng.shuffle(rows)
    return rows


def write_split(path, rows):
    with atomic_output(path) as f:
        f.write("sentence_a\tsentence_b\tlabel\n")
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
    write_split(os.path.join(out, "train.tsv"), _pairs(train, TRAIN_PAIRS, rng, seen))
    write_split(os.path.join(out, "dev.tsv"), _pairs(dev, DEV_PAIRS, rng, seen))


def main():
    write_set(os.path.join(ROOT, "assets", "demo_continuation"))


if __name__ == "__main__":
    main()
