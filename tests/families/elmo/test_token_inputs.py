"""The original's token inputs read as it leaves them: a character model's
folder (options.json, lm_weights.hdf5, vocab.txt) with the table its
`dump_token_embeddings` wrote beside them (token_embedding_weights.hdf5),
against the original's biLM run with `use_character_inputs=False` on the same
files (`bilm_reference.py`, in order from a zero state, so our encoder is
stateful); by the Python API, `--init_checkpoint` and `convert_checkpoint.py
--token_embedding_file`. Bad files are named."""

import os
import shutil

import h5py
import numpy as np
import pytest

import convert_checkpoint
from checkpoints.loader import load_into
from families.elmo import characters
from families.elmo.checkpoints import lm_weights
from families.elmo.checkpoints.convert import read_bilm
from families.elmo.checkpoints.formats import load_lm_weights
from families.elmo.checkpoints.token_inputs import EMBEDDING_FILES, token_inputs_config
from families.elmo.config import ELMoConfig
from tests.families.elmo import cases
from tests.families.elmo.test_bilm_parity import BOUND

CASE = "chars"
TABLE = EMBEDDING_FILES[0]  # the name bilm_reference.py gives the original's output


@pytest.fixture(scope="module")
def original(elmo_cases, bilm_outputs, tmp_path_factory):
    """(a folder as the original leaves it, the original's token-input outputs)."""
    folder = tmp_path_factory.mktemp("token_inputs")
    for name in ("options.json", "lm_weights.hdf5", "vocab.txt", TABLE):
        shutil.copy(os.path.join(elmo_cases[CASE], name), folder / name)
    return folder, bilm_outputs[CASE]


def token_encoder(folder, embedding_file):
    """A stateful token-embedding encoder for the original's options and table."""
    config = token_inputs_config(ELMoConfig.from_json_file(str(folder / "options.json")), embedding_file)
    return cases.build(config, stateful=True)


def check_outputs(encoder, reference):
    """Our layers of the batches, run in order, against the original's."""
    for k, layers in enumerate(cases.run_ours(encoder, cases.BATCHES)):
        mask = reference[f"token_inputs_mask_{k}"]
        ids = cases.inputs(encoder.config, cases.BATCHES[k])["input_word_ids"]
        np.testing.assert_array_equal(ids * mask, reference[f"token_inputs_ids_{k}"][:, 1:-1] * mask)
        difference = (layers - reference[f"token_inputs_lm_embeddings_{k}"]) * mask[:, None, :, None]
        assert np.abs(difference).max() <= BOUND, k


def test_the_table_beside_lm_weights_is_read_as_the_original_reads_it(original):
    folder, reference = original
    config = token_inputs_config(ELMoConfig.from_json_file(str(folder / "options.json")), str(folder / TABLE))
    assert config.char_cnn is None and config.n_tokens_vocab == len(cases.VOCAB)
    encoder = token_encoder(folder, str(folder / TABLE))
    report = load_lm_weights(encoder, str(folder))  # strict: the char CNN's datasets are set aside
    assert "bilm/token_embedding/embedding" in report.loaded and not report.unused
    check_outputs(encoder, reference)
    # --init_checkpoint (the format detected): the same.
    again = token_encoder(folder, str(folder / TABLE))
    load_into(again, str(folder / "lm_weights.hdf5"), strict=True)
    check_outputs(again, reference)


def test_the_table_is_the_character_cnns_vectors_of_the_vocabulary(original):
    """Row k is our char CNN's vector of word k, `<S>` and `</S>` as the
    sentence boundaries' tokens (the original's vocabulary gives them so)."""
    folder, _ = original
    bilm, _ = read_bilm(str(folder), ELMoConfig.from_json_file(str(folder / "options.json")))
    words = np.array([[characters.word_char_ids(w) for w in cases.VOCAB]], np.int32)
    with h5py.File(folder / TABLE, "r") as f:
        table = f["embedding"][...]
    np.testing.assert_allclose(np.asarray(bilm.tokens(words))[0], table, rtol=0, atol=BOUND)


def test_a_table_given_by_name_is_read_and_none_is_named(original, tmp_path):
    folder, reference = original
    bare = tmp_path / "bare"
    shutil.copytree(folder, bare, ignore=shutil.ignore_patterns(TABLE))
    table = str(tmp_path / "elsewhere.hdf5")
    shutil.copy(folder / TABLE, table)
    encoder = token_encoder(folder, table)
    with pytest.raises(lm_weights.LMWeightsError, match=r"lm_weights\.hdf5: no dataset 'embedding' for the "
                                                        r"token-embedding model, and no token embedding file"):
        load_lm_weights(encoder, str(bare))
    load_lm_weights(encoder, str(bare), embedding_file=table)
    check_outputs(encoder, reference)


@pytest.mark.parametrize("output_format", ["hdf5", "ours"])
def test_convert_checkpoint_reads_the_token_inputs(original, tmp_path, output_format):
    """`convert_checkpoint.py --token_embedding_file`: our token-embedding
    variant (its options without char_cnn) with the vocabulary beside."""
    folder, reference = original
    out = tmp_path / output_format
    convert_checkpoint.convert(str(folder), str(out), output_format, token_embedding_file=str(folder / TABLE))
    config = ELMoConfig.from_json_file(str(out / "options.json"))
    assert config.token_embeddings and config.n_tokens_vocab == len(cases.VOCAB)
    assert (out / "vocab.txt").read_text(encoding="utf-8") == (folder / "vocab.txt").read_text(encoding="utf-8")
    if output_format == "hdf5":
        assert "char_embed" not in lm_weights.read_datasets(str(out))
    encoder = cases.build(config, stateful=True)
    load_into(encoder, str(out), strict=True)
    check_outputs(encoder, reference)
    with pytest.raises(ValueError, match="--token_embedding_file is for ELMo checkpoints, and the config is BERT's"):
        convert_checkpoint.convert(str(folder), str(tmp_path / "bert"), "ours", preset="bert_tiny_uncased",
                                   token_embedding_file=str(folder / TABLE))


def write_table(path, table, name="embedding"):
    with h5py.File(path, "w") as f:
        f.create_dataset(name, data=table)
    return str(path)


def test_bad_token_inputs_are_named(original, tmp_path):
    folder, _ = original
    options = ELMoConfig.from_json_file(str(folder / "options.json"))
    with pytest.raises(lm_weights.LMWeightsError, match=r"wrong\.hdf5: no dataset 'embedding'"):
        token_inputs_config(options, write_table(tmp_path / "wrong.hdf5", np.zeros((10, 8)), "weights"))
    with pytest.raises(lm_weights.LMWeightsError, match=r"narrow\.hdf5: 'embedding' is 4 wide, the options' "
                                                        r"lstm\.projection_dim is 8"):
        token_inputs_config(options, write_table(tmp_path / "narrow.hdf5", np.zeros((10, 4))))
    with pytest.raises(lm_weights.LMWeightsError, match=r"text\.hdf5: not a readable HDF5 file"):
        (tmp_path / "text.hdf5").write_text("not hdf5")
        token_inputs_config(options, str(tmp_path / "text.hdf5"))
    longer = write_table(tmp_path / "longer.hdf5", np.zeros((11, 8)))
    with pytest.raises(lm_weights.LMWeightsError, match=r"longer\.hdf5 has 11 rows, .*vocab\.txt 10 words"):
        convert_checkpoint.convert(str(folder), str(tmp_path / "out"), "ours", token_embedding_file=longer)
    # Two tables beside lm_weights.hdf5: which one is not guessed.
    shutil.copy(folder / TABLE, folder / EMBEDDING_FILES[1])
    try:
        with pytest.raises(lm_weights.LMWeightsError, match="two token embedding files"):
            load_lm_weights(token_encoder(folder, str(folder / TABLE)), str(folder))
    finally:
        os.remove(folder / EMBEDDING_FILES[1])
