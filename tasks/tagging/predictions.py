"""Window outputs -> one value per word -> `predictions.txt` for conlleval.

Each word is read at the first piece of the one window that owns it
(`tasks.tagging.features`): the positions with label weight 1, which also carry
the word's index and the window its sentence's index. The file has one
`word gold predicted` line per word and a blank line after each sentence,
the input conlleval reads: `perl conlleval.pl < predictions.txt` gives the
scores `run_ner.py` reports.
"""

import numpy as np

from utils.files import atomic_output


def values_per_word(label_weights, word_index, sentence_index, values):
    """{sentence: [value of each word, in order]} from window rows.

    `label_weights`, `word_index` and `values` are [windows, seq],
    `sentence_index` is [windows]. Raises if a sentence seen lacks a word.
    """
    label_weights, values = np.asarray(label_weights), np.asarray(values)
    rows, positions = np.nonzero(label_weights > 0)
    sentences = np.asarray(sentence_index)[rows]
    words = np.asarray(word_index)[rows, positions]
    found = {}
    for sentence, word, value in zip(sentences.tolist(), words.tolist(),
                                     values[rows, positions].tolist()):
        found.setdefault(sentence, {})[word] = value
    out = {}
    for sentence, by_word in found.items():
        if len(by_word) != max(by_word) + 1:
            missing = sorted(set(range(max(by_word) + 1)) - set(by_word))
            raise ValueError(f"sentence {sentence}: words {missing} have no prediction")
        out[sentence] = [by_word[w] for w in range(len(by_word))]
    return out


def write_conll_predictions(path, sentences, predicted_tags):
    """`word gold predicted` lines, a blank line after each sentence; atomic. Gold
    tags are the reader's IOB2 (an IOB1 file's chunks, as conlleval reads them)."""
    with atomic_output(path) as f:
        for sentence, tags in zip(sentences, predicted_tags):
            for word, gold, predicted in zip(sentence.words, sentence.tags, tags):
                f.write(f"{word} {gold} {predicted}\n")
            f.write("\n")
