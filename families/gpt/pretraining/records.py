"""GPT's pretraining records: contiguous windows of the corpus's BPE ids, as
the original pretrained on (512 consecutive tokens of BooksCorpus each).

A record holds `input_ids` and `input_mask` (google-research's names), both
`max_seq_length` wide. A chunk's documents are one token stream: each
document's lines (its sentences) follow one another as running text, and the
newline piece `\\n</w>` ends the document, so the model sees where one stops.
The stream is cut into windows from its start; the last window, shorter, is
padded with 0 (mask 0), and dropped when it holds a single token, which
predicts nothing. The model predicts each real token from those before it in
its window.
"""

import numpy as np

from data.pretraining import features as F

NEWLINE_PIECE = "\n</w>"  # the release's id 40477; `build_vocab.py --model=gpt` writes it last
PAD_ID = 0


def feature_layout(max_seq_length):
    """Ordered {name: (width, kind)} of one record."""
    return {F.INPUT_IDS: (max_seq_length, F.INT), F.INPUT_MASK: (max_seq_length, F.INT)}


def windows(stream, max_seq_length):
    """(input_ids, input_mask), int64 [windows, max_seq_length], of a token
    stream cut from its start; the last window padded, or dropped when it
    would hold one token."""
    stream = np.asarray(stream, dtype=np.int64)
    count = -(-len(stream) // max_seq_length)
    if len(stream) % max_seq_length == 1:
        count -= 1
    ids = np.full(count * max_seq_length, PAD_ID, dtype=np.int64)
    kept = min(len(stream), count * max_seq_length)
    ids[:kept] = stream[:kept]
    mask = (np.arange(count * max_seq_length) < kept).astype(np.int64)
    return ids.reshape(count, max_seq_length), mask.reshape(count, max_seq_length)
