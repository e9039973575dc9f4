"""ELMo's text side beyond what the every-family suite checks (Python ids equal
the graph's, packing, the runners): words as tokens, pairs, the vocabulary
and a checkpoint folder without one."""

import numpy as np
import pytest

from checkpoints.companion_files import resolve_model_files
from families.elmo import characters
from families.elmo.config import ELMoConfig, ELMoConfigError
from families.elmo.text_side import ELMoText
from families.elmo.vocabulary import Vocabulary, VocabularyError


@pytest.fixture(scope="module")
def text():
    return ELMoText.from_file(None, do_lower_case=True)


def test_raw_text_is_split_and_a_task_word_is_one_token(text):
    assert text.encode("U.S. troops, 3.5km!") == [characters.word_char_ids(w) for w in
                                                  ["U", ".", "S", ".", "troops", ",", "3", ".", "5km", "!"]]
    assert text.encode_word("U.S.") == [characters.word_char_ids("U.S.")]
    assert text.encode("Ünïcödé") == [characters.word_char_ids("Ünïcödé")]  # not lower-cased, not folded


def test_a_pair_is_packed_with_the_sentence_boundaries_between_and_cut_longest_first(text):
    a, b = text.encode("one two three four five"), text.encode("six seven")
    packed = text.pack(a, b, 6)
    assert text.to_tokens(packed["input_char_ids"]) == ["one", "two", "</S>", "<S>", "six", "seven"]
    assert packed["input_mask"].tolist() == [1] * 6
    packed = text.pack(a[:1], None, 4)
    assert text.to_tokens(packed["input_char_ids"]) == ["one", "", "", ""]
    assert not packed["input_char_ids"][1:].any() and packed["input_mask"].tolist() == [1, 0, 0, 0]
    # Where each piece lands, as feature extraction reads it.
    indexes = text.piece_indexes(5, 2, 6).tolist()
    assert indexes == [0, 1, None, None, 5, 6]
    assert text.piece_indexes(2, None, 4).tolist() == [0, 1, None, None]


def test_words_over_48_bytes_are_cut_and_named_by_what_is_kept(text):
    word = "é" * 30  # 60 bytes: cut to 48, inside no character
    (token,) = text.encode(word)
    assert text.to_tokens([token]) == ["é" * 24]


def test_the_vocabulary_is_read_with_its_errors_named(tmp_path):
    good = tmp_path / "vocab.txt"
    good.write_text("<S>\n</S>\n<UNK>\nthe\ncat\n", encoding="utf-8")
    vocabulary = Vocabulary.from_file(str(good))
    assert (len(vocabulary), vocabulary.word_id("cat"), vocabulary.word_id("dog")) == (5, 4, 2)
    assert ELMoText.from_file(str(good), False).special_ids.vocab_size == 5
    for content, message in [("<S>\n</S>\nthe\n", "has no <UNK>"), ("<S>\n</S>\n<UNK>\nthe\nthe\n",
                                                                    r":5: 'the' repeats line 4"),
                              ("<S>\n\n</S>\n<UNK>\n", ":2: expected one word")]:
        bad = tmp_path / "bad.txt"
        bad.write_text(content, encoding="utf-8")
        with pytest.raises(VocabularyError, match=message):
            Vocabulary.from_file(str(bad))


def test_a_released_folder_needs_no_vocabulary_and_one_beside_it_is_found(tmp_path):
    config = ELMoConfig.from_preset("elmo_tiny")
    config.to_json_file(str(tmp_path / "options.json"))
    (tmp_path / "lm_weights.hdf5").write_bytes(b"")
    vocab_file, found = resolve_model_files(init_checkpoint=str(tmp_path))
    assert vocab_file is None and found == config
    (tmp_path / "vocab.txt").write_text("<S>\n</S>\n<UNK>\n", encoding="utf-8")
    assert resolve_model_files(init_checkpoint=str(tmp_path))[0] == str(tmp_path / "vocab.txt")
    assert ELMoText.needs_vocabulary(config) is False
    tokens = ELMoConfig(lstm=config.lstm, char_cnn=None, n_tokens_vocab=3)
    assert ELMoText.needs_vocabulary(tokens) is True
    tokens.to_json_file(str(tmp_path / "options.json"))
    with pytest.raises(ELMoConfigError, match="token-embedding biLM .* does not run the tasks"):
        resolve_model_files(init_checkpoint=str(tmp_path))
    np.testing.assert_array_equal(ELMoText.from_file(None, False).unk_id, characters.word_char_ids(""))
