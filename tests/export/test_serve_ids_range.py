"""Every family's classifier SavedModel refuses ids outside their table in
`serve_ids` and `serve_examples` (an InvalidArgument error naming the input and
its valid range) instead of answering with another token's row; the largest
valid id still serves. The ranges are the encoder config's
`input_vocab_sizes`: BERT's word and type ids, XLNet's and GPT's word ids,
ELMo's character ids."""

import importlib
import re

import keras
import numpy as np
import pytest
import tensorflow as tf

from export.serving_classification import example_protos, save_classification
from families import registry
from modeling.feature_based_models import FeatureBasedClassifier, feature_based
from modeling.task_models import SequenceClassifier

SEQ_LENGTH = 12
TEXTS = ["The red house has two doors.", "A cat."]
EXPECTED_SIZES = {  # input -> the config field its table has rows for
    "bert": {"input_word_ids": "vocab_size", "input_type_ids": "type_vocab_size"},
    "xlnet": {"input_word_ids": "n_token"},
    "gpt": {"input_word_ids": "vocab_size"},  # n_vocab + n_special
    "elmo": {"input_char_ids": None},  # char_embed's 262 rows
}


@pytest.fixture(scope="module", params=registry.names())
def served(request, tmp_path_factory):
    """(config, the loaded SavedModel of a random tiny classifier, packed ids of TEXTS)."""
    name = request.param
    family = registry.family(name)
    kit = importlib.import_module(f"tests.families.{name}.kit")
    config = kit.tiny_config()
    text_side = family.text_side.from_file(kit.vocabulary(tmp_path_factory),
                                           family.text_side.do_lower_case_default)
    keras.utils.set_random_seed(6)
    encoder = family.build_encoder(config)
    model = (FeatureBasedClassifier if feature_based(encoder) else SequenceClassifier)(encoder, 2)
    export_dir = save_classification(str(tmp_path_factory.mktemp(name) / "1"), model, text_side, SEQ_LENGTH,
                                     ("no", "yes"))
    return config, tf.saved_model.load(export_dir), text_side.encode_texts(TEXTS, None, SEQ_LENGTH)


def _with(ids, name, value):
    """`ids` with one id of input `name` (in the second row) replaced by `value`."""
    changed = {key: np.array(array, np.int64) for key, array in ids.items()}
    changed[name][(1,) + (1,) * (changed[name].ndim - 1)] = value
    return changed


def _serve_ids(model, ids):
    return model.signatures["serve_ids"](**{k: tf.constant(v, tf.int32) for k, v in ids.items()})


def test_the_ranges_are_the_tables_of_the_encoder(served):
    config, _, _ = served
    family = registry.family_of(config).name
    sizes = {name: getattr(config, field) if field else 262 for name, field in EXPECTED_SIZES[family].items()}
    assert config.input_vocab_sizes == sizes


def test_serve_ids_refuses_ids_outside_each_table_naming_input_and_range(served):
    config, model, ids = served
    expected = _serve_ids(model, ids)["probabilities"].numpy()
    for name, size in config.input_vocab_sizes.items():
        _serve_ids(model, _with(ids, name, size - 1))  # the last row is valid
        for bad in (size, size + 1, 1_000_000, -1, -1_000_000):
            message = re.escape(f"{name} holds ids outside the valid range [0, {size})")
            with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                _serve_ids(model, _with(ids, name, bad))
    np.testing.assert_array_equal(_serve_ids(model, ids)["probabilities"].numpy(), expected)


def test_serve_examples_refuses_them_before_reading_them_as_int32(served):
    config, model, ids = served
    name, size = next(iter(config.input_vocab_sizes.items()))
    model.signatures["serve_examples"](examples=tf.constant(example_protos(ids)))
    for bad in (size, 2 ** 32 + 5, -1):  # 2**32 + 5 would be 5 as int32
        with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(f"[0, {size})")):
            model.signatures["serve_examples"](examples=tf.constant(example_protos(_with(ids, name, bad))))
