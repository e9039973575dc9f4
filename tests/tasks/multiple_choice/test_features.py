"""Multiple-choice examples -> [examples, choices, seq] encoder inputs."""

import os

import numpy as np
import pytest

from data.text.tokenization import FullTokenizer
from tasks.multiple_choice.features import NO_LABEL, encode_examples
from tasks.multiple_choice.swag_reader import MultipleChoiceExample, read_multiple_choice_file
from tests.conftest import FIXTURES


@pytest.fixture(scope="module")
def tokenizer(uncased_vocab_file):
    return FullTokenizer(uncased_vocab_file, do_lower_case=True)


def _tokens(tokenizer, ids, mask):
    return tokenizer.vocab.to_tokens(ids[mask.astype(bool)])


def test_each_choice_is_context_then_start_and_ending(tokenizer):
    examples = read_multiple_choice_file(os.path.join(FIXTURES, "swag_train.csv")).examples
    features = encode_examples(tokenizer, examples, max_seq_length=32)
    assert all(v.shape == (8, 4, 32) and v.dtype == np.int32 for v in features.inputs.values())
    np.testing.assert_array_equal(features.labels, [0, 1, 2, 3, 0, 1, 2, 3])
    word_ids = features.inputs["input_word_ids"][0, 0]
    mask = features.inputs["input_mask"][0, 0]
    assert " ".join(_tokens(tokenizer, word_ids, mask)) == (
        "[CLS] a man pour ##s flour into a bowl . [SEP] "
        "he cracks two eggs into the flour and stir ##s . [SEP]")
    type_ids = features.inputs["input_type_ids"][0, 0][mask.astype(bool)]
    np.testing.assert_array_equal(type_ids, [0] * 11 + [1] * 12)
    assert features.num_truncated == 0


def test_long_pairs_truncated_longest_first(tokenizer):
    example = MultipleChoiceExample("x", "one two three four five six seven eight", "",
                                    ("alpha beta", "alpha beta gamma delta epsilon zeta"), None)
    features = encode_examples(tokenizer, [example], max_seq_length=12)
    assert features.num_truncated == 2
    assert features.labels.tolist() == [NO_LABEL]
    ids, mask = features.inputs["input_word_ids"][0], features.inputs["input_mask"][0]
    assert mask.sum(axis=-1).tolist() == [12, 12]
    assert _tokens(tokenizer, ids[0], mask[0]) == [
        "[CLS]", "one", "two", "three", "four", "five", "six", "seven", "[SEP]",
        "alpha", "beta", "[SEP]"]
    assert _tokens(tokenizer, ids[1], mask[1]) == [
        "[CLS]", "one", "two", "three", "four", "five", "[SEP]",
        "alpha", "beta", "gamma", "delta", "[SEP]"]
