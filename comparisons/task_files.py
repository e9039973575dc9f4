"""The layouts of the tasks' files, and the two things the comparison does to
every task's subset whatever its layout: lower-case its text (never its
labels), and hold a slice of its train split out for choosing learning rates.

- `TSV`: GLUE's tab-separated files with a header (`train.tsv`, `dev.tsv`);
- `CONLL`: CoNLL-2003's `word POS chunk NER` lines, sentences between blank
  lines (`train.txt`, `dev.txt`);
- `JSONL`: the next-sentence choice's `{"context", "endings", "label"}` lines;
- `SQUAD`: a SQuAD v1.1 JSON file, split by article.
"""

import dataclasses
import json
import os
import random

from tasks.tagging.conll_reader import DOCSTART
from utils.files import atomic_output, atomic_write_text


def lower(text):
    """Lower-cased, character by character where that keeps the length (SQuAD's
    answer offsets count characters; `"İ".lower()` is two)."""
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def _slice(items, fraction, seed):
    """(kept, held): a seeded `fraction` of `items` (at least one) held out, order kept."""
    count = min(len(items) - 1, max(1, round(fraction * len(items))))
    held = set(random.Random(seed).sample(range(len(items)), count))
    return [x for i, x in enumerate(items) if i not in held], [x for i, x in enumerate(items) if i in held]


def conll_sentences(path):
    """A CoNLL file's sentences, each its lines (line ends dropped) joined by
    newlines, split as `tasks.tagging.conll_reader` splits them: at blank or
    whitespace-only lines and at `-DOCSTART-` lines, which are dropped."""
    sentences, lines = [], []
    with open(path, encoding="utf-8", newline="") as f:
        for line in f:
            columns = line.split()
            if columns and columns[0] != DOCSTART:
                lines.append(line.rstrip("\r\n"))
            elif lines:
                sentences.append("\n".join(lines))
                lines = []
    if lines:
        sentences.append("\n".join(lines))
    return sentences


def write_conll_sentences(path, sentences):
    atomic_write_text(path, "\n\n".join(sentences) + "\n\n")


@dataclasses.dataclass(frozen=True)
class TSV:
    baseline: str  # the kind of non-neural baselines (`comparisons.baselines`)
    text_columns: tuple
    label_column: int
    glue_task: str = "sst-2"  # whose GLUE layout its columns follow (the baselines' reader)
    word_order: bool = False  # the baselines check the set for lexical cues
    extension: str = ".tsv"

    def baseline_options(self):
        return {"glue_task": self.glue_task, **({"word_order": True} if self.word_order else {})}

    def _read(self, path):
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8").split("\n")
        return lines[0], [line for line in lines[1:] if line.strip()]

    def _write(self, path, header, rows):
        with atomic_output(path, "wb") as f:
            f.write("\n".join([header, *rows]).encode("utf-8") + b"\n")

    def lower(self, path):
        header, rows = self._read(path)
        lowered = []
        for row in rows:
            fields = row.split("\t")
            for column in self.text_columns:
                if column < len(fields):
                    fields[column] = lower(fields[column])
            lowered.append("\t".join(fields))
        self._write(path, header, lowered)

    def split(self, directory, selection_dir, fraction, seed):
        header, rows = self._read(os.path.join(directory, "train" + self.extension))
        kept, held = _slice(rows, fraction, seed)
        self._write(os.path.join(selection_dir, "train" + self.extension), header, kept)
        self._write(os.path.join(selection_dir, "dev" + self.extension), header, held)
        return {"train": len(kept), "dev": len(held)}


@dataclasses.dataclass(frozen=True)
class CONLL:
    tag_column: int
    baseline: str = "tagging"
    extension: str = ".txt"

    def baseline_options(self):
        return {"tag_column": self.tag_column}

    def lower(self, path):
        def line(text):
            word, _, rest = text.partition(" ")
            return f"{lower(word)} {rest}" if rest else lower(word)
        write_conll_sentences(path, ["\n".join(line(t) for t in s.split("\n")) for s in conll_sentences(path)])

    def split(self, directory, selection_dir, fraction, seed):
        kept, held = _slice(conll_sentences(os.path.join(directory, "train" + self.extension)), fraction, seed)
        write_conll_sentences(os.path.join(selection_dir, "train" + self.extension), kept)
        write_conll_sentences(os.path.join(selection_dir, "dev" + self.extension), held)
        return {"train": len(kept), "dev": len(held)}


@dataclasses.dataclass(frozen=True)
class JSONL:
    baseline: str = "multiple_choice"
    extension: str = ".jsonl"

    def baseline_options(self):
        return {}

    def _read(self, path):
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]

    def _write(self, path, records):
        with atomic_output(path) as f:
            f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)

    def lower(self, path):
        self._write(path, [{**r, "context": lower(r["context"]), "endings": [lower(e) for e in r["endings"]]}
                           for r in self._read(path)])

    def split(self, directory, selection_dir, fraction, seed):
        kept, held = _slice(self._read(os.path.join(directory, "train" + self.extension)), fraction, seed)
        self._write(os.path.join(selection_dir, "train" + self.extension), kept)
        self._write(os.path.join(selection_dir, "dev" + self.extension), held)
        return {"train": len(kept), "dev": len(held)}


@dataclasses.dataclass(frozen=True)
class SQUAD:
    baseline: str = None  # no non-neural baseline for span extraction here
    extension: str = ".json"

    def _read(self, path):
        with open(path, encoding="utf-8") as f:
            return json.load(f)

    def _write(self, path, articles, version):
        atomic_write_text(path, json.dumps({"version": version, "data": articles}))

    def lower(self, path):
        squad = self._read(path)
        for article in squad["data"]:
            for paragraph in article["paragraphs"]:
                paragraph["context"] = lower(paragraph["context"])
                for qa in paragraph["qas"]:
                    qa["question"] = lower(qa["question"])
                    for answer in qa.get("answers", []):
                        answer["text"] = lower(answer["text"])
        self._write(path, squad["data"], squad.get("version", "1.1"))

    def split(self, directory, selection_dir, fraction, seed):
        squad = self._read(os.path.join(directory, "train" + self.extension))
        kept, held = _slice(squad["data"], fraction, seed)
        counts = {}
        for split, part in (("train", kept), ("dev", held)):
            self._write(os.path.join(selection_dir, split + self.extension), part, squad.get("version", "1.1"))
            counts[split] = sum(len(p["qas"]) for a in part for p in a["paragraphs"])
        return counts
