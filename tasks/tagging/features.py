"""Tagged sentences -> fixed-length encoder windows with first-piece labels.

As in the paper, each word's label sits on its first word piece; the other
pieces carry weight 0, so they count in neither the loss nor the output.
Pieces come from the encoder family's text side, word by word (WordPiece's
basic tokenizer, or SentencePiece, whose pieces never cross whitespace), and
windows are packed by it, so the first piece's position follows the family's
layout (BERT: after `[CLS]`; XLNet: after the left padding). A word the
tokenizer drops entirely (only control or zero-width characters) still takes
one unknown piece (`[UNK]`, `<unk>`), so every word keeps a position and a
prediction. A sentence longer than one window is split into windows that
start about `doc_stride` pieces apart, at word boundaries; each word is
predicted in exactly one of them, the one that gives it the most context on
its shorter side (the SQuAD "max context" rule), so no word is dropped.
With `document_context`, a sentence that fits in one window is padded out
with the pieces of its neighbours in the same document, without labels.

Example:
>>> features = build_tagging_features(sentences, text_side, {"O": 0, "B-PER": 1, ...},
...                                   max_seq_length=128)
>>> features.inputs["input_word_ids"].shape, features.label_weights.sum()
((num_windows, 128), total_number_of_words)
"""

import dataclasses

import numpy as np

from data.text.segments import stack_inputs
from data.text.text_side import as_text_side


@dataclasses.dataclass
class TaggingFeatures:
    """Columns over all windows: `inputs` is the encoder's dict of int32 [windows, seq];
    `word_index` names the word of a weighted position (-1 elsewhere) and
    `sentence_index` [windows] the sentence each window comes from."""

    inputs: dict
    label_ids: np.ndarray
    label_weights: np.ndarray
    word_index: np.ndarray
    sentence_index: np.ndarray

    def __len__(self):
        return len(self.sentence_index)


def word_piece_ids(text, sentences, max_pieces):
    """Ids of the pieces of each word of each sentence, from the text side
    `text` (`encode_words`, every word of every sentence in one call): the
    unknown id for a word with none, at most `max_pieces`."""
    ids = iter(text.encode_words([word for sentence in sentences for word in sentence.words]))
    return [[next(ids)[:max_pieces] or [text.unk_id] for _ in sentence.words] for sentence in sentences]


def plan_windows(piece_counts, max_pieces, doc_stride):
    """[(first_word, end_word)) spans of at most `max_pieces` pieces covering every word.
    Each window starts at the first word `doc_stride` or more pieces after the previous
    window's start, or at that window's end if this comes first (so no word is skipped)."""
    offsets = np.concatenate([[0], np.cumsum(piece_counts)]).astype(int)
    spans, start = [], 0
    while True:
        end = start
        while end < len(piece_counts) and offsets[end + 1] - offsets[start] <= max_pieces:
            end += 1
        spans.append((start, end))
        if end == len(piece_counts):
            return spans
        start = next((w for w in range(start + 1, end)
                      if offsets[w] - offsets[start] >= doc_stride), end)


def owning_windows(piece_counts, spans):
    """For each word, the span in which its first piece has the most context on its
    shorter side (ties: the earlier span)."""
    offsets = np.concatenate([[0], np.cumsum(piece_counts)]).astype(int)
    owners = []
    for word in range(len(piece_counts)):
        best, best_score = None, -1
        for i, (start, end) in enumerate(spans):
            if start <= word < end:
                score = min(offsets[word] - offsets[start], offsets[end] - offsets[word] - 1)
                if score > best_score:
                    best, best_score = i, score
        owners.append(best)
    return owners


def _context(sentence_pieces, sentences, index, budget):
    """Pieces of the neighbouring sentences of the same document: (left, right),
    about half of `budget` each, the nearer pieces first."""
    def gather(step):
        pieces, j = [], index + step
        while 0 <= j < len(sentences) and sentences[j].document == sentences[index].document:
            flat = [p for word in sentence_pieces[j] for p in word]
            pieces = flat + pieces if step < 0 else pieces + flat
            if len(pieces) >= budget:
                break
            j += step
        return pieces

    left, right = gather(-1), gather(+1)
    right_take = min(len(right), budget - min(len(left), budget // 2))
    left_take = min(len(left), budget - right_take)
    return left[len(left) - left_take:], right[:right_take]


def build_tagging_features(sentences, text, label_to_id, max_seq_length=128,
                           doc_stride=64, document_context=False):
    """`TaggingFeatures` for `sentences` (`tasks.tagging.conll_reader.TaggedSentence`);
    `text` is a family's `TextSide` (a WordPiece `FullTokenizer` is read as BERT's)."""
    text = as_text_side(text)
    max_pieces = max_seq_length - text.num_specials(None)
    if max_pieces < 1:
        raise ValueError(f"max_seq_length {max_seq_length} leaves no room for a word")
    if doc_stride < 1:
        raise ValueError(f"doc_stride must be positive, got {doc_stride}")
    sentence_pieces = word_piece_ids(text, sentences, max_pieces)
    columns = {name: [] for name in ("label_ids", "label_weights", "word_index")}
    packed, sentence_index = [], []
    for index, (sentence, pieces) in enumerate(zip(sentences, sentence_pieces)):
        counts = [len(p) for p in pieces]
        spans = plan_windows(counts, max_pieces, doc_stride)
        owners = owning_windows(counts, spans)
        for i, (start, end) in enumerate(spans):
            ids = [p for word in pieces[start:end] for p in word]
            left = right = []
            if document_context and len(spans) == 1:
                left, right = _context(sentence_pieces, sentences, index, max_pieces - len(ids))
            label_ids = np.zeros(max_seq_length, np.int32)
            weights = np.zeros(max_seq_length, np.float32)
            word_index = np.full(max_seq_length, -1, np.int32)
            window = left + ids + right
            position = text.segment_a_start(len(window), max_seq_length) + len(left)
            for word in range(start, end):
                if owners[word] == i:
                    label_ids[position] = label_to_id[sentence.tags[word]]
                    weights[position] = 1.0
                    word_index[position] = word
                position += counts[word]
            packed.append(text.pack(window, None, max_seq_length))
            for name, value in zip(columns, (label_ids, weights, word_index)):
                columns[name].append(value)
            sentence_index.append(index)
    arrays = {name: np.array(values).reshape(-1, max_seq_length)
              for name, values in columns.items()}
    inputs = (stack_inputs(packed) if packed else
              {name: np.zeros((0, *shape), np.int32)
               for name, shape in text.input_shapes(max_seq_length).items()})
    return TaggingFeatures(
        inputs=inputs,
        label_ids=arrays["label_ids"].astype(np.int32),
        label_weights=arrays["label_weights"].astype(np.float32),
        word_index=arrays["word_index"].astype(np.int32),
        sentence_index=np.array(sentence_index, np.int32))
