"""Fixed subsets of the labelled sets, written into the comparison's folder in
the layout their runners read, so every system fine-tunes and is scored on the
same examples: a seeded sample of a GLUE task's train and dev rows (header and
byte-order mark kept), a seeded sample of CoNLL-2003's train and dev sentences
(not the first ones: the files run document by document, so their head is a
few days of news on a few topics), SQuAD articles split between train and dev
(no article in both)."""

import json
import os
import random

from comparisons.task_files import conll_sentences, write_conll_sentences
from utils.files import atomic_output, atomic_write_text


def _sample(items, count, seed):
    """`count` of `items` drawn with `seed` (all when there are fewer), in their order."""
    if count >= len(items):
        return items
    return [items[i] for i in sorted(random.Random(seed).sample(range(len(items)), count))]


def sample_rows(source, target, count, seed):
    """A TSV with its header line and `count` rows drawn with `seed` (all when
    there are fewer), in file order. Bytes are copied as they are."""
    with open(source, "rb") as f:
        lines = f.read().split(b"\n")
    header, rows = lines[0], _sample([line for line in lines[1:] if line.strip()], count, seed)
    with atomic_output(target, "wb") as f:
        f.write(b"\n".join([header, *rows]) + b"\n")
    return len(rows)


def glue_subset(source_dir, target_dir, num_train, num_dev, seed):
    """`train.tsv` and `dev.tsv` of a GLUE task folder, sampled; returns the counts."""
    return {split: sample_rows(os.path.join(source_dir, f"{split}.tsv"), os.path.join(target_dir, f"{split}.tsv"),
                               count, seed)
            for split, count in (("train", num_train), ("dev", num_dev))}


def sample_sentences(source, target, count, seed):
    """`count` of a CoNLL file's sentences (`task_files.conll_sentences`)
    drawn with `seed` (all when there are fewer), in file order; returns how
    many. Lines are copied as they are."""
    sentences = _sample(conll_sentences(source), count, seed)
    write_conll_sentences(target, sentences)
    return len(sentences)


def conll_subset(source_dir, target_dir, num_train, num_dev, seed):
    """`train.txt` and `dev.txt` of a CoNLL-2003 folder, sampled; returns sentence counts."""
    return {split: sample_sentences(os.path.join(source_dir, f"{split}.txt"),
                                    os.path.join(target_dir, f"{split}.txt"), count, seed)
            for split, count in (("train", num_train), ("dev", num_dev))}


def squad_split(source, target_dir, dev_fraction, seed):
    """`train.json` and `dev.json`: the articles of a SQuAD file shuffled with
    `seed` and divided; returns question counts."""
    with open(source, encoding="utf-8") as f:
        squad = json.load(f)
    articles = list(squad["data"])
    if len(articles) < 2:
        raise ValueError(f"{source}: {len(articles)} article(s); splitting by article needs 2 or more")
    random.Random(seed).shuffle(articles)
    num_dev = min(max(1, round(dev_fraction * len(articles))), len(articles) - 1)
    counts = {}
    for split, part in (("train", articles[num_dev:]), ("dev", articles[:num_dev])):
        atomic_write_text(os.path.join(target_dir, f"{split}.json"),
                          json.dumps({"version": squad.get("version", "1.1"), "data": part}))
        counts[split] = sum(len(p["qas"]) for a in part for p in a["paragraphs"])
    return counts
