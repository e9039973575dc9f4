"""Fixed subsets of the labelled sets, written into the comparison's folder in
the layout their runners read, so every system fine-tunes and is scored on the
same examples: a seeded sample of a GLUE task's train and dev rows (header and
byte-order mark kept), the first sentences of CoNLL-2003's train and dev
files, SQuAD articles split between train and dev (no article in both)."""

import json
import os
import random

from utils.files import atomic_output, atomic_write_text


def sample_rows(source, target, count, seed):
    """A TSV with its header line and `count` rows drawn with `seed` (all when
    there are fewer), in file order. Bytes are copied as they are."""
    with open(source, "rb") as f:
        lines = f.read().split(b"\n")
    header, rows = lines[0], [line for line in lines[1:] if line.strip()]
    if count < len(rows):
        keep = sorted(random.Random(seed).sample(range(len(rows)), count))
        rows = [rows[i] for i in keep]
    with atomic_output(target, "wb") as f:
        f.write(b"\n".join([header, *rows]) + b"\n")
    return len(rows)


def glue_subset(source_dir, target_dir, num_train, num_dev, seed):
    """`train.tsv` and `dev.tsv` of a GLUE task folder, sampled; returns the counts."""
    return {split: sample_rows(os.path.join(source_dir, f"{split}.tsv"), os.path.join(target_dir, f"{split}.tsv"),
                               count, seed)
            for split, count in (("train", num_train), ("dev", num_dev))}


def first_sentences(source, target, count):
    """The CoNLL lines up to the end of its `count`-th sentence (blank-line
    separated; `-DOCSTART-` lines kept, not counted)."""
    kept, sentences, in_sentence = [], 0, False
    with open(source, encoding="utf-8") as f:
        for line in f:
            if sentences == count:
                break
            kept.append(line)
            if line.strip() and not line.startswith("-DOCSTART-"):
                in_sentence = True
            elif not line.strip() and in_sentence:
                sentences, in_sentence = sentences + 1, False
    atomic_write_text(target, "".join(kept).rstrip("\n") + "\n\n")
    return sentences + in_sentence


def conll_subset(source_dir, target_dir, num_train, num_dev):
    """`train.txt` and `dev.txt` of a CoNLL-2003 folder, cut; returns sentence counts."""
    return {split: first_sentences(os.path.join(source_dir, f"{split}.txt"),
                                   os.path.join(target_dir, f"{split}.txt"), count)
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
