"""Sentences -> the windows the biLM trains on, as the original's
`bilm/data.py` (`_get_batch`) cuts them.

Each sentence is `<S> w1 .. wn </S>` forward and `</S> wn .. w1 <S>` backward;
every token but the last is an input whose target is the next token. A batch
has `batch_size` rows, each a stream of sentences: row 0 fills its
`unroll_steps` inputs first (continuing its sentence from the previous batch,
then taking the next unused sentences), then row 1, and so on, so row r of a
batch continues row r of the batch before and the LSTM state carries across.
The batch in which the sentences run out is dropped, as the original drops it.
Forward and backward are cut at the same places (a sentence has as many inputs
each way), so one record holds both (the original streams them separately).
"""

import numpy as np

from families.elmo.pretraining import features as E
from families.elmo.pretraining.vocabulary import BOS, EOS


def window_positions(input_counts, batch_size, unroll_steps):
    """int64 [batches * batch_size, unroll_steps]: where each window's inputs
    are among all sentences' inputs laid end to end, sentence i having
    `input_counts[i]` of them; rows of one batch are consecutive."""
    starts = np.concatenate([[0], np.cumsum(input_counts)])
    rows = [None] * batch_size  # [next position, end] of each row's sentence
    next_sentence, windows = 0, []
    while True:
        batch = []
        for r in range(batch_size):
            pieces, need = [], unroll_steps
            while need:
                if rows[r] is None or rows[r][0] == rows[r][1]:
                    if next_sentence == len(input_counts):
                        return (np.concatenate(windows) if windows else
                                np.zeros((0, unroll_steps), np.int64))
                    rows[r] = [starts[next_sentence], starts[next_sentence + 1]]
                    next_sentence += 1
                take = min(rows[r][1] - rows[r][0], need)
                pieces.append(np.arange(rows[r][0], rows[r][0] + take))
                rows[r][0] += take
                need -= take
            batch.append(np.concatenate(pieces))
        windows.append(np.stack(batch))


def windows(sentences, vocab, batch_size, unroll_steps):
    """{record feature: [windows, unroll_steps] array} of `sentences` (lists
    of words), in batch order, and the number of inputs left over in the
    dropped last batch."""
    index, unk = vocab.index, vocab.unk
    flat = {name: [] for name in E.feature_layout(unroll_steps)}
    for words in sentences:
        for suffix, tokens in (("", [BOS, *words, EOS]), ("_reverse", [EOS, *words[::-1], BOS])):
            ids = [index.get(t, unk) for t in tokens]
            flat[E.TOKEN_IDS + suffix] += ids[:-1]
            flat[E.NEXT_TOKEN_ID + suffix] += ids[1:]
            flat[E.TOKENS + suffix] += [t.encode("utf-8") for t in tokens[:-1]]
    positions = window_positions([len(words) + 1 for words in sentences], batch_size, unroll_steps)
    out = {name: (np.array(values, dtype=object if name.startswith(E.TOKENS) else np.int64)[positions]
                  if values else np.zeros((0, unroll_steps), np.int64))
           for name, values in flat.items()}
    return out, len(flat[E.TOKEN_IDS]) - positions.size
