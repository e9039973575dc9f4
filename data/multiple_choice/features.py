"""Multiple-choice examples -> encoder inputs of shape [examples, choices, seq].

Each choice is one sequence pair, as in the paper's SWAG setup, packed by the
encoder family's text side: for BERT [CLS] context [SEP] start + ending [SEP],
truncated longest-first when it does not fit (the original rule,
`data.text.segments.truncate_pair`).
"""

import dataclasses

import numpy as np

from data.text.families import as_text_side

NO_LABEL = -1


@dataclasses.dataclass
class ChoiceFeatures:
    """`inputs`: int32 [examples, choices, seq] for each encoder input name;
    `labels`: int32 [examples], `NO_LABEL` where an example has none."""

    inputs: dict
    labels: np.ndarray
    num_truncated: int  # choices whose pair was cut to fit max_seq_length


def encode_example(text_side, example, max_seq_length):
    """(word_ids, mask, type_ids) int32 [choices, seq] and how many choices were
    truncated; `text_side` is a `TextSide`, or a WordPiece `FullTokenizer` for BERT's."""
    text_side = as_text_side(text_side)
    context_ids = text_side.encode(example.context)
    rows, truncated = [], 0
    for _, text_b in example.choice_texts():
        choice_ids = text_side.encode(text_b)
        truncated += (len(context_ids) + len(choice_ids) + text_side.num_specials(choice_ids)
                      > max_seq_length)
        rows.append(text_side.pack(context_ids, choice_ids, max_seq_length))
    word_ids, mask, type_ids = (np.stack(column) for column in zip(*rows))
    return (word_ids, mask, type_ids), truncated


def encode_examples(text_side, examples, max_seq_length):
    """`ChoiceFeatures` for examples that all have the same number of choices;
    `text_side` is a `TextSide`, or a WordPiece `FullTokenizer` for BERT's."""
    text_side = as_text_side(text_side)
    columns, num_truncated = ([], [], []), 0
    for example in examples:
        arrays, truncated = encode_example(text_side, example, max_seq_length)
        for column, array in zip(columns, arrays):
            column.append(array)
        num_truncated += truncated
    names = ("input_word_ids", "input_mask", "input_type_ids")
    inputs = {name: np.stack(column) for name, column in zip(names, columns)}
    labels = np.array([NO_LABEL if e.label is None else e.label for e in examples], np.int32)
    return ChoiceFeatures(inputs, labels, num_truncated)
