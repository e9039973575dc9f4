"""Per-token activations of chosen encoder layers, as the original `extract_features.py`.

Input: one example per line, `text_a` or `text_a ||| text_b`. Output: one
JSON object per line in the original layout,

    {"linex_index": 0, "features": [{"token": "[CLS]", "layers": [{"index": -1,
     "values": [0.1234, ...]}, ...]}, ...]}

with values rounded to 6 decimals, for every token of `[CLS] A [SEP] (B [SEP])`
(pairs truncated longest first, as the original). Each token also carries
`segment` (0 for text_a, 1 for text_b) and `char_span`, the [begin, end)
character offsets of the piece in its segment's text (null for `[CLS]` and
`[SEP]`): a `##` piece spans its part of the word, a word that became
`[UNK]` spans the whole word. Layer indexes count the Transformer layers
(-1 the last, 0 the first), as the original's `get_all_encoder_layers()`.
"""

import dataclasses
import re

import keras
import numpy as np
import tensorflow as tf

from data.text.segments import pack_ids, truncate_pair
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
    """One line's encoder inputs, and per token its text, segment and character span."""

    unique_id: int
    inputs: dict
    tokens: list
    segments: list
    char_spans: list


def _pieces_with_spans(tokenizer, texts):
    """Per text: (ids, [(char_begin, char_end)]) of its word pieces, in order."""
    ids, begins, ends = tokenizer.tokenize_with_offsets(tf.constant(texts, tf.string))
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


def encode_lines(lines, tokenizer, vocab, max_seq_length):
    """`EncodedLine`s: `tokenizer` a `data.text.graph_tokenizer.GraphTokenizer` (ids as the
    original `FullTokenizer`, plus byte offsets); padded to `max_seq_length`."""
    texts_a = _pieces_with_spans(tokenizer, [line.text_a for line in lines])
    texts_b = _pieces_with_spans(tokenizer, [line.text_b or "" for line in lines])
    encoded = []
    for line, (ids_a, spans_a), (ids_b, spans_b) in zip(lines, texts_a, texts_b):
        if line.text_b is None:
            ids_a, spans_a = ids_a[:max_seq_length - 2], spans_a[:max_seq_length - 2]
            ids_b = spans_b = None
        else:
            kept_a, kept_b = truncate_pair(ids_a, ids_b, max_seq_length - 3)
            ids_a, spans_a = kept_a, spans_a[:len(kept_a)]
            ids_b, spans_b = kept_b, spans_b[:len(kept_b)]
        word_ids, mask, type_ids = pack_ids(ids_a, ids_b, max_seq_length, vocab.cls_id,
                                            vocab.sep_id, vocab.pad_id)
        tokens = vocab.to_tokens(word_ids[:int(mask.sum())].tolist())
        char_spans = [None] + spans_a + [None]
        segments = [0] * len(char_spans)
        if ids_b is not None:
            char_spans += spans_b + [None]
            segments += [1] * (len(spans_b) + 1)
        encoded.append(EncodedLine(
            line.unique_id,
            {"input_word_ids": word_ids, "input_mask": mask, "input_type_ids": type_ids},
            tokens, segments, char_spans))
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
            for i, token in enumerate(line.tokens):
                layers = [{"index": index, "values": [round(float(x), 6) for x in output[row, i]]}
                          for index, output in zip(layer_indexes, outputs)]
                span = line.char_spans[i]
                features.append({"token": token, "layers": layers, "segment": line.segments[i],
                                 "char_span": list(span) if span else None})
            yield {"linex_index": line.unique_id, "features": features}
