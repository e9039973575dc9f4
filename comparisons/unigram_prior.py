"""The held-out loss of a language model that has learnt no context: the
cross-entropy of the held-out text's tokens under the corpus's unigram
distribution (add-one smoothed). A pretrained system whose held-out LM loss
is not well below it has learnt word frequencies only (the plateau small
models sit on before they use context), and its fine-tuning measures that."""

import itertools

import numpy as np


def unigram_cross_entropy(corpus_ids, held_out_ids, vocab_size):
    """Nats per held-out token under the corpus's add-one-smoothed unigram distribution."""
    counts = np.bincount(np.asarray(corpus_ids, np.int64), minlength=vocab_size)[:vocab_size] + 1.0
    log_p = np.log(counts / counts.sum())
    return float(-log_p[np.asarray(held_out_ids, np.int64)].mean())


def text_ids(path, target_ids, max_lines=None, batch=1000):
    """Every id `target_ids(lines)` (a list of ids per line) gives for the
    nonblank lines of `path` (the first `max_lines`), `batch` lines a call (an
    in-graph tokenizer runs once per call)."""
    with open(path, encoding="utf-8") as f:
        lines = [line for line in itertools.islice((line.strip() for line in f), max_lines) if line]
    return [i for start in range(0, len(lines), batch) for ids in target_ids(lines[start:start + batch])
            for i in ids]
