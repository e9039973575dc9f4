"""Per-token activations of chosen encoder layers, as the original `extract_features.py`.

Input: one example per line, `text_a` or `text_a ||| text_b`. Output: one
JSON object per line in the original layout,

    {"linex_index": 0, "features": [{"token": "[CLS]", "layers": [{"index": -1,
     "values": [0.1234, ...]}, ...]}, ...]}

with values rounded to 6 decimals, for every token the encoder family's text
side packs (`data/text/text_side.py`): BERT's `[CLS] A [SEP] (B [SEP])`, XLNet's
SentencePiece pieces in `A <sep> (B <sep>) <cls>`; pairs truncated longest
first, as the original; padding (XLNet's on the left) has no features. Each
token also carries `segment`, its `input_type_ids` (0 for text_a, 1 for
text_b; XLNet's `<cls>` 2; for a family without them, 1 on text_b's pieces
and 0 elsewhere), and `char_span`, the [begin, end) character
offsets of the piece in its segment's text, where the family's tokenizer
gives offsets (WordPiece: a `##` piece spans its part of the word, a word
that became `[UNK]` the whole word); null for special tokens and for pieces
without offsets (XLNet's SentencePiece, which reads normalised text). Layer
indexes count the Transformer layers (-1 the last, 0 the first), as the
original's `get_all_encoder_layers()`.
"""

import dataclasses
import re

import keras
import numpy as np
import tensorflow as tf

from data.text.segments import truncate_pair
from data.text.tokenization import to_text

_PAIR = re.compile(r"^(.*) \|\|\| (.*)$")


@dataclasses.dataclass(frozen=True)
class InputLine:
    unique_id: int
    text_a: str
    text_b: str = None


def read_input_lines(path):
    """Every line of `path` (empty ones too) as an `InputLine`, ids from 0."""
    lines = []
    with open(path, "rb") as f:
        for unique_id, raw in enumerate(f):
            line = to_text(raw).strip()
            match = _PAIR.match(line)
            if match:
                lines.append(InputLine(unique_id, match.group(1), match.group(2)))
            else:
                lines.append(InputLine(unique_id, line))
    return lines


@dataclasses.dataclass(frozen=True)
class EncodedLine:
    """One line's encoder inputs, and per token its text, segment, character span
    and position in the row."""

    unique_id: int
    inputs: dict
    tokens: list
    segments: list
    char_spans: list
    positions: list


def _offsets_to_spans(texts, ids, begins, ends):
    """Per text: (ids, [(char_begin, char_end)]) of its pieces from ragged byte offsets."""
    out = []
    for text, row_ids, row_begins, row_ends in zip(
            texts, ids.merge_dims(1, 2).to_list(), begins.merge_dims(1, 2).to_list(),
            ends.merge_dims(1, 2).to_list()):
        # Byte offsets -> character indexes (offsets always fall on character starts).
        starts = np.cumsum([0] + [len(c.encode("utf-8")) for c in text])
        char_begins = np.searchsorted(starts, row_begins).tolist()
        char_ends = np.searchsorted(starts, row_ends).tolist()
        out.append((row_ids, list(zip(char_begins, char_ends))))
    return out


def _pieces_with_spans(text_side, texts):
    """Per text: (ids, [(char_begin, char_end) or None]) of its pieces, in order:
    from the graph tokenizer's offsets where it gives them per piece (WordPiece),
    else the Python ids with no spans (XLNet's offsets span whole words)."""
    tokenizer = text_side.graph_tokenizer()
    if tokenizer.piece_offsets:
        return _offsets_to_spans(
            texts, *tokenizer.tokenize_with_offsets(tf.constant(texts, tf.string)))
    return [(ids, [None] * len(ids)) for ids in map(text_side.encode, texts)]


def encode_lines(lines, text_side, max_seq_length):
    """`EncodedLine`s packed by `text_side` (a `data.text.text_side.TextSide`) to
    `max_seq_length`."""
    texts_a = _pieces_with_spans(text_side, [line.text_a for line in lines])
    texts_b = _pieces_with_spans(text_side, [line.text_b or "" for line in lines])
    encoded = []
    for line, (ids_a, spans_a), (ids_b, spans_b) in zip(lines, texts_a, texts_b):
        if line.text_b is None:
            ids_b = spans_b = None
        ids_a, kept_b = truncate_pair(ids_a, ids_b or [],
                                      max_seq_length - text_side.num_specials(ids_b))
        spans = spans_a[:len(ids_a)]
        if ids_b is not None:
            ids_b = kept_b
            spans += spans_b[:len(ids_b)]
        inputs = text_side.pack(ids_a, ids_b, max_seq_length)
        positions = np.flatnonzero(inputs["input_mask"])
        pieces = text_side.piece_indexes(len(ids_a), None if ids_b is None else len(ids_b),
                                         max_seq_length)[positions].tolist()
        if "input_type_ids" in inputs:
            segments = inputs["input_type_ids"][positions].tolist()
        else:  # a family without segment ids: B's pieces are segment 1, the rest 0
            segments = [int(i is not None and i >= len(ids_a)) for i in pieces]
        encoded.append(EncodedLine(
            line.unique_id, inputs, text_side.to_tokens(inputs[text_side.ids_input][positions].tolist()),
            segments, [None if i is None else spans[i] for i in pieces], positions.tolist()))
    return encoded


def layers_model(encoder, layer_indexes):
    """A model sharing `encoder`'s weights returning the chosen layers, in order."""
    all_layers = encoder.output["encoder_outputs"]
    for index in layer_indexes:
        if not -len(all_layers) <= index < len(all_layers):
            raise ValueError(f"layer {index} does not exist: the encoder has "
                             f"{len(all_layers)} layers (-{len(all_layers)}..{len(all_layers) - 1})")
    return keras.Model(encoder.input, [all_layers[i] for i in layer_indexes])


def feature_records(model, layer_indexes, encoded_lines, batch_size):
    """The JSON-ready record of each `EncodedLine`, in order."""
    for start in range(0, len(encoded_lines), batch_size):
        batch = encoded_lines[start:start + batch_size]
        inputs = {k: np.stack([line.inputs[k] for line in batch]) for k in batch[0].inputs}
        outputs = model.predict_on_batch(inputs)
        outputs = [np.asarray(o, np.float32) for o in (
            outputs if isinstance(outputs, (list, tuple)) else [outputs])]
        for row, line in enumerate(batch):
            features = []
            for i, (token, position) in enumerate(zip(line.tokens, line.positions)):
                layers = [{"index": index,
                           "values": [round(float(x), 6) for x in output[row, position]]}
                          for index, output in zip(layer_indexes, outputs)]
                span = line.char_spans[i]
                features.append({"token": token, "layers": layers, "segment": line.segments[i],
                                 "char_span": list(span) if span else None})
            yield {"linex_index": line.unique_id, "features": features}
