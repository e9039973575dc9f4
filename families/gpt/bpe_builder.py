"""Learns a GPT BPE vocabulary from a text corpus and writes it in the
original release's two files:

- `encoder_bpe_<n>.json`: `<unk>` = 0, each character of the corpus words
  (most frequent first), the same characters with `</w>`, the n merged
  pieces in merge order, and `\\n</w>` last (the layout of the release);
- `vocab_<n>.bpe`: `#version: 0.2`, then the n merges, one "a b" a line.

Words are the tokenizer's own (`families.gpt.tokenizer_words.words`: ftfy,
the original's standardisation, spaCy, lower-casing), so the vocabulary fits
the way text is later tokenized. Each step merges the most frequent adjacent
pair (ties: the smaller pair in string order), counted over word frequencies,
as Sennrich et al.'s `learn_bpe`.
"""

import collections
import heapq
import json
import os

from data.pretraining.corpus_reader import CorpusError, expand_input_files
from families.gpt.bpe import SPECIAL_TOKENS, UNK_ID, WORD_END
from families.gpt.tokenizer_words import words
from utils.files import atomic_output

NEWLINE_PIECE = "\n" + WORD_END


def count_words(files):
    """Counter of the words of every line of `files`; invalid UTF-8 is an error naming file and line."""
    counts = collections.Counter()
    for path in files:
        with open(path, "rb") as f:
            for line_no, raw in enumerate(f, start=1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as e:
                    raise CorpusError(f"{path}:{line_no}: invalid UTF-8 ({e.reason})") from None
                counts.update(w for w in words(line) if w.strip())
    if not counts:
        raise CorpusError(f"empty corpus: no words in {', '.join(files)}")
    return counts


def _pairs(symbols):
    return zip(symbols, symbols[1:])


def learn_merges(word_counts, num_merges, min_frequency=2):
    """The first `num_merges` merges of `word_counts`, most frequent pair first.
    Raises a `CorpusError` when the corpus has fewer pairs of `min_frequency`."""
    vocab = [list(w[:-1]) + [w[-1] + WORD_END] for w in word_counts]
    freqs = list(word_counts.values())
    counts, where = collections.Counter(), collections.defaultdict(set)
    for i, symbols in enumerate(vocab):
        for pair in _pairs(symbols):
            counts[pair] += freqs[i]
            where[pair].add(i)
    heap = [(-c, pair) for pair, c in counts.items()]
    heapq.heapify(heap)
    merges = []
    while len(merges) < num_merges:
        while heap and -heap[0][0] != counts.get(heap[0][1], 0):
            heapq.heappop(heap)  # a stale count
        if not heap or -heap[0][0] < min_frequency:
            raise CorpusError(f"the corpus gives only {len(merges)} merges of pairs seen at least "
                              f"{min_frequency} times; {num_merges} were asked for")
        pair = heapq.heappop(heap)[1]
        merges.append(pair)
        changed = set()
        for i in where.pop(pair):
            old = vocab[i]
            for p in _pairs(old):
                counts[p] -= freqs[i]
                changed.add(p)
            new, j = [], 0
            while j < len(old):
                if j + 1 < len(old) and (old[j], old[j + 1]) == pair:
                    new.append(pair[0] + pair[1])
                    j += 2
                else:
                    new.append(old[j])
                    j += 1
            vocab[i] = new
            for p in _pairs(new):
                counts[p] += freqs[i]
                where[p].add(i)
                changed.add(p)
        counts.pop(pair, None)
        for p in changed - {pair}:
            heapq.heappush(heap, (-counts[p], p))
    return merges


def encoder_of(word_counts, merges):
    """{piece: id} in the release's layout (module docstring)."""
    chars = collections.Counter()
    for word, count in word_counts.items():
        for char in word:
            chars[char] += count
    alphabet = sorted(chars, key=lambda c: (-chars[c], c))
    pieces = ["<unk>"] + alphabet + [c + WORD_END for c in alphabet] + [a + b for a, b in merges]
    pieces = list(dict.fromkeys(pieces + [NEWLINE_PIECE]))
    assert pieces.index("<unk>") == UNK_ID
    return {piece: i for i, piece in enumerate(pieces)}


def write_vocabulary(output_dir, encoder, merges):
    """Writes both files atomically; returns their paths (encoder, merges)."""
    encoder_file = os.path.join(output_dir, f"encoder_bpe_{len(merges)}.json")
    merges_file = os.path.join(output_dir, f"vocab_{len(merges)}.bpe")
    with atomic_output(encoder_file) as f:
        json.dump(encoder, f, ensure_ascii=False)
    with atomic_output(merges_file) as f:
        f.write("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges))
    return encoder_file, merges_file


def merges_for_size(word_counts, vocab_size):
    """The merges that make `vocab_size` ids in all: the pieces without merges
    (`<unk>`, the characters with and without `</w>`, the newline) and the
    three special tokens fine-tuning adds take the rest."""
    merges = vocab_size - len(encoder_of(word_counts, [])) - len(SPECIAL_TOKENS)
    if merges < 0:
        raise CorpusError(f"a vocabulary of {vocab_size} ids is smaller than the corpus's "
                          f"{vocab_size - merges} characters and special tokens")
    return merges


def build_bpe_vocabulary(input_files, output_dir, num_merges=None, min_frequency=2, vocab_size=None):
    """Corpus files (paths or globs) -> the two vocabulary files in `output_dir`;
    `num_merges` merges, or those that make `vocab_size` ids (`merges_for_size`)."""
    word_counts = count_words(expand_input_files(input_files))
    if vocab_size is not None:
        num_merges = merges_for_size(word_counts, vocab_size)
    merges = learn_merges(word_counts, num_merges, min_frequency)
    return write_vocabulary(output_dir, encoder_of(word_counts, merges), merges)
