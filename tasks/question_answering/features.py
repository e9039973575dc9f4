"""SQuAD examples -> fixed-length model windows, as the original `run_squad.py`s.

Each example becomes one or more windows: the question is cut to
`max_query_length` pieces, and the context's pieces are covered by windows of
at most `max_seq_length - len(question) - 3` pieces whose starts are
`doc_stride` apart. A piece seen in several windows is scored only in the
window where it has the most context (`is_max_context`). Training windows
carry the answer's start/end index, or the null position's (`cls_index`) when
the answer is not inside the window or the question has none (v2.0).

The family picks the layout (`window_layout`: its record's, else BERT's): BERT's
`[CLS] question [SEP] paragraph [SEP]` padded on the right, the null answer at
[CLS] (position 0); GPT's `_start_ question _delimiter_ paragraph _classify_`
(`families.gpt.question_answering.windows`), the question first so that
its left-to-right encoder reads the paragraph in the light of the question;
XLNet's `paragraph <sep> question <sep> <cls>` as its
original (the paragraph first: in pretraining the second segment is the
shorter), padded on the left as our XLNet text side packs, so `<cls>` is
last; relative attention makes the outputs of real tokens independent of where
the padding sits. Context pieces are mapped to the reader's whitespace
`doc_tokens`: BERT's are each word tokenized alone, as its original; XLNet's
are the paragraph's pieces as its original tokenizes it, cut at word starts
(`families.xlnet.question_answering.windows.ParagraphFirst.word_pieces`).

One choice beyond the original: a context with no word pieces (empty, or only
characters the tokenizer drops) still yields one window holding the question
alone, so every question gets a prediction (the null answer).

The window rules (`doc_spans`, `is_max_context`, `improve_answer_span`) are
pure functions, shared by the Python post-processing and by anything that has
to reproduce it (a serving graph).
"""

import dataclasses

import numpy as np

from contracts import registry
from data.text.text_side import as_text_side

FIRST_UNIQUE_ID = 1000000000


@dataclasses.dataclass(frozen=True)
class DocSpan:
    """`length` context word pieces starting at piece `start`."""

    start: int
    length: int


@dataclasses.dataclass
class SquadFeature:
    """One window of one example.

    `tokens` are the window's pieces by position in the family's layout (BERT:
    [CLS], question, [SEP], context, [SEP], then padding left out; XLNet:
    "<pad>" for its left padding, context, <sep>, question, <sep>, <cls>);
    `token_to_orig_map[i]` is the context word (index into the example's
    `doc_tokens`) of window position i, and `token_is_max_context[i]` whether
    this window is the best one to score position i in. Only context positions
    appear in either map. `p_mask` is 1.0 where no answer may start or end
    (question, separators, padding), 0.0 on context pieces and at `cls_index`,
    the null answer's position. `is_impossible`: the window holds no answer
    (training: the question has none, or it lies outside the window).
    """

    unique_id: int
    example_index: int
    doc_span_index: int
    tokens: list
    token_to_orig_map: dict
    token_is_max_context: dict
    inputs: dict  # the encoder inputs of the window, as the text side's `pack` names them
    p_mask: np.ndarray = None
    cls_index: int = 0
    start_position: int = None
    end_position: int = None
    is_impossible: bool = False


def doc_spans(num_pieces, max_pieces_per_span, doc_stride):
    """Windows over `num_pieces` context pieces: starts `doc_stride` apart (or
    less at the end), each at most `max_pieces_per_span` long, the last ending
    at the last piece. No pieces -> one empty window."""
    if max_pieces_per_span < 1 or doc_stride < 1:
        raise ValueError(f"need max_pieces_per_span >= 1 and doc_stride >= 1, got "
                         f"{max_pieces_per_span} and {doc_stride}")
    spans, start = [], 0
    while True:
        length = min(num_pieces - start, max_pieces_per_span)
        spans.append(DocSpan(start, length))
        if start + length >= num_pieces:
            return spans
        start += min(length, doc_stride)


def is_max_context(spans, span_index, position):
    """Whether `spans[span_index]` is the window where context piece `position`
    has the most context: the largest min(left, right) context plus 0.01 x the
    window length; the first such window wins ties."""
    best_score, best_index = None, None
    for index, span in enumerate(spans):
        end = span.start + span.length - 1
        if position < span.start or position > end:
            continue
        score = min(position - span.start, end - position) + 0.01 * span.length
        if best_score is None or score > best_score:
            best_score, best_index = score, index
    return span_index == best_index


def improve_answer_span(doc_pieces, start, end, tokenizer, answer_text):
    """The sub-span of pieces [start, end] that tokenizes exactly like the answer.

    The word-level answer "(1895-1943)." for the gold "1895" becomes the single
    piece "1895": the shortest span from the left whose pieces equal the
    answer's pieces, or the input span when none does.
    """
    answer_pieces = " ".join(tokenizer.tokenize(answer_text))
    for new_start in range(start, end + 1):
        for new_end in range(end, new_start - 1, -1):
            if " ".join(doc_pieces[new_start:new_end + 1]) == answer_pieces:
                return new_start, new_end
    return start, end


class QuestionFirst:
    """BERT: `[CLS] question [SEP] paragraph [SEP]`, padded on the right."""

    @staticmethod
    def tokenizer(text):
        """What splits questions, answers and words into pieces (`tokenize`):
        the text side's own tokenizer."""
        return text.tokenizer

    @staticmethod
    def word_pieces(tokenizer, example):
        """Each of `doc_tokens` tokenized alone, as the original."""
        return [tokenizer.tokenize(word) for word in example.doc_tokens]

    @staticmethod
    def ids(text, pieces):
        return text.vocab.ids(pieces)

    @staticmethod
    def pack(text, query_ids, doc_ids, max_seq_length):
        """(encoder inputs, doc_offset, cls_index)."""
        return text.pack(query_ids, doc_ids, max_seq_length), len(query_ids) + 2, 0

    @staticmethod
    def tokens(query, doc, doc_offset):
        """The window's pieces by position, up to the padding."""
        return ["[CLS]", *query, "[SEP]", *doc, "[SEP]"]


class _ContextPieces:
    """Pieces of one context, cached because questions share contexts."""

    def __init__(self, tokenizer, layout):
        self.tokenizer = tokenizer
        self.layout = layout
        self._key = None

    def __call__(self, example):
        if (example.context, example.doc_tokens) != self._key:
            piece_to_word, word_to_piece, pieces = [], [], []
            for w, word_pieces in enumerate(self.layout.word_pieces(self.tokenizer, example)):
                word_to_piece.append(len(pieces))
                for piece in word_pieces:
                    piece_to_word.append(w)
                    pieces.append(piece)
            self._key = example.context, example.doc_tokens
            self._value = pieces, piece_to_word, word_to_piece
        return self._value


def window_layout(family):
    """How `family` lays out a window: its record's `question_answering.windows`,
    else BERT's question-first layout."""
    parts = registry.family(family).question_answering
    return parts.windows if parts else QuestionFirst


def check_lengths(max_seq_length, max_query_length, doc_stride):
    """The original's sanity rule: a window must have room for context pieces."""
    if max_seq_length <= max_query_length + 3:
        raise ValueError(f"max_seq_length ({max_seq_length}) must be greater than "
                         f"max_query_length ({max_query_length}) + 3")
    if doc_stride < 1:
        raise ValueError(f"doc_stride must be >= 1, got {doc_stride}")


def convert_examples_to_features(examples, text, max_seq_length, doc_stride,
                                 max_query_length, is_training, first_unique_id=FIRST_UNIQUE_ID):
    """List of `SquadFeature` for `examples`, unique ids counting up from
    `first_unique_id`; `text` is a `TextSide` (or BERT's `FullTokenizer`)."""
    check_lengths(max_seq_length, max_query_length, doc_stride)
    text = as_text_side(text)
    layout = window_layout(text.family)
    tokenizer = layout.tokenizer(text)
    context_pieces = _ContextPieces(tokenizer, layout)
    features, unique_id = [], first_unique_id
    for example_index, example in enumerate(examples):
        query = tokenizer.tokenize(example.question_text)[:max_query_length]
        pieces, piece_to_word, word_to_piece = context_pieces(example)
        answer = _answer_pieces(example, pieces, word_to_piece, tokenizer) if is_training else None
        spans = doc_spans(len(pieces), max_seq_length - len(query) - 3, doc_stride)
        query_ids = layout.ids(text, query)
        for span_index, span in enumerate(spans):
            positions = range(span.start, span.start + span.length)
            window_pieces = pieces[span.start:span.start + span.length]
            inputs, doc_offset, cls_index = layout.pack(
                text, query_ids, layout.ids(text, window_pieces), max_seq_length)
            p_mask = np.ones(max_seq_length, np.float32)
            p_mask[doc_offset:doc_offset + span.length] = 0.0
            p_mask[cls_index] = 0.0
            feature = SquadFeature(
                unique_id=unique_id, example_index=example_index, doc_span_index=span_index,
                tokens=layout.tokens(query, window_pieces, doc_offset),
                token_to_orig_map={doc_offset + i: piece_to_word[p] for i, p in enumerate(positions)},
                token_is_max_context={doc_offset + i: is_max_context(spans, span_index, p)
                                      for i, p in enumerate(positions)},
                inputs=inputs,
                p_mask=p_mask, cls_index=cls_index, is_impossible=example.is_impossible)
            if is_training:
                window = _window_positions(answer, span, doc_offset)
                feature.is_impossible = window is None
                feature.start_position, feature.end_position = window or (cls_index, cls_index)
            features.append(feature)
            unique_id += 1
    return features


def _answer_pieces(example, pieces, word_to_piece, tokenizer):
    """The training answer as a piece span, or None for a v2.0 negative."""
    if example.is_impossible:
        return None
    start = word_to_piece[example.start_position]
    if example.end_position < len(example.doc_tokens) - 1:
        end = word_to_piece[example.end_position + 1] - 1
    else:
        end = len(pieces) - 1
    return improve_answer_span(pieces, start, end, tokenizer, example.answer_text)


def _window_positions(answer, span, doc_offset):
    """Window indices of the answer's first and last piece; None when the
    window does not hold the whole answer, or there is none."""
    if answer is None:
        return None
    start, end = answer
    if start > end or start < span.start or end > span.start + span.length - 1:
        return None
    return start - span.start + doc_offset, end - span.start + doc_offset
