"""Multiple-choice examples -> encoder inputs of shape [examples, choices, seq].

Each choice is one sequence pair, as in the paper's SWAG setup, packed by the
encoder family's text side: for BERT [CLS] context [SEP] start + ending [SEP],
truncated longest-first when it does not fit (the original rule,
`data.text.segments.truncate_pair`).
"""

import dataclasses

import numpy as np

from data.text.segments import stack_inputs
from data.text.text_side import as_text_side

NO_LABEL = -1


@dataclasses.dataclass
class ChoiceFeatures:
    """`inputs`: int32 [examples, choices, seq] for each encoder input name;
    `labels`: int32 [examples], `NO_LABEL` where an example has none."""

    inputs: dict
    labels: np.ndarray
    num_truncated: int  # choices whose pair was cut to fit max_seq_length


def encode_example(text_side, example, max_seq_length):
    """The encoder inputs ({name: int32 [choices, seq, ...]}) and how many
    choices were truncated; `text_side` is a `TextSide`, or a WordPiece
    `FullTokenizer` for BERT's."""
    text_side = as_text_side(text_side)
    return _pack_choices(text_side, text_side.encode(example.context),
                         [text_side.encode(text_b) for _, text_b in example.choice_texts()], max_seq_length)


def _pack_choices(text_side, context_ids, choice_ids, max_seq_length):
    rows, truncated = [], 0
    for ids in choice_ids:
        truncated += len(context_ids) + len(ids) + text_side.num_specials(ids) > max_seq_length
        rows.append(text_side.pack(context_ids, ids, max_seq_length))
    return stack_inputs(rows), truncated


def encode_examples(text_side, examples, max_seq_length):
    """`ChoiceFeatures` for examples that all have the same number of choices;
    `text_side` is a `TextSide`, or a WordPiece `FullTokenizer` for BERT's.
    Every text is tokenized in one call (`encode_batch`)."""
    text_side = as_text_side(text_side)
    contexts = text_side.encode_batch([e.context for e in examples])
    choices = iter(text_side.encode_batch([text_b for e in examples for _, text_b in e.choice_texts()]))
    per_example, num_truncated = [], 0
    for example, context_ids in zip(examples, contexts):
        inputs, truncated = _pack_choices(text_side, context_ids, [next(choices) for _ in example.choice_texts()],
                                          max_seq_length)
        per_example.append(inputs)
        num_truncated += truncated
    inputs = stack_inputs(per_example)
    labels = np.array([NO_LABEL if e.label is None else e.label for e in examples], np.int32)
    return ChoiceFeatures(inputs, labels, num_truncated)
