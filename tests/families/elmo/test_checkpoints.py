"""The original `lm_weights.hdf5` layout: read into our biLM, written back
bit for bit, converted to ours and back; missing datasets named."""

import os

import h5py
import numpy as np
import pytest

from checkpoints.loader import CheckpointMismatchError, load_into
from checkpoints.ours import save_weights
from families.elmo.checkpoints import lm_weights
from families.elmo.checkpoints.convert import OUTPUT_FORMATS, convert, read_bilm
from families.elmo.checkpoints.formats import FORMATS, load_lm_weights
from families.elmo.config import ELMoConfig
from tests.families.elmo import cases


def stored(path):
    """{dataset: (dtype, shape, bytes)} of an HDF5 file, as stored."""
    return {name: (v.dtype, v.shape, v.tobytes()) for name, v in lm_weights.read_datasets(path).items()}


@pytest.mark.parametrize("name", list(cases.CONFIGS))
def test_hdf5_to_ours_to_hdf5_is_bit_identical(name, elmo_cases, tmp_path):
    source = os.path.join(elmo_cases[name], "lm_weights.hdf5")
    config = ELMoConfig.from_json_file(os.path.join(elmo_cases[name], "options.json"))
    for output_format in OUTPUT_FORMATS:
        report = convert(source, str(tmp_path / output_format), output_format, config)
        assert not report.missing and not report.unused
    assert stored(tmp_path / "hdf5" / "lm_weights.hdf5") == stored(source)
    convert(str(tmp_path / "ours"), str(tmp_path / "back"), "hdf5", config)
    assert stored(tmp_path / "back" / "lm_weights.hdf5") == stored(source)
    for directory in ("hdf5", "ours", "back"):
        assert ELMoConfig.from_json_file(str(tmp_path / directory / "options.json")) == config
    assert sorted(os.listdir(tmp_path / "hdf5")) == ["lm_weights.hdf5", "options.json"]  # no temporary left


def test_padding_rows_are_added_at_load_and_taken_off_at_write(elmo_cases):
    path = os.path.join(elmo_cases["chars"], "lm_weights.hdf5")
    with h5py.File(path, "r") as f:
        assert f["char_embed"].shape == (261, 4)
        assert "RNN_0/RNN/MultiRNNCell/Cell1/LSTMCell/W_P_0" in f
    bilm, _ = read_bilm(path, cases.CONFIGS["chars"])
    table = bilm.tokens.char_embed.numpy()
    assert table.shape == (262, 4) and not table[0].any()


def test_the_format_is_detected(elmo_cases, tmp_path):
    (fmt,) = FORMATS
    assert fmt.detect(elmo_cases["chars"], None)  # a folder holding lm_weights.hdf5
    assert fmt.detect(os.path.join(elmo_cases["chars"], "lm_weights.hdf5"), None)
    with h5py.File(tmp_path / "other.h5", "w") as f:
        f.create_dataset("dense/kernel", data=np.zeros(2))
    assert not fmt.detect(str(tmp_path / "other.h5"), None)
    assert not fmt.detect(os.path.join(elmo_cases["chars"], "options.json"), None)


def test_missing_dataset_names_file_and_dataset(elmo_cases, tmp_path):
    tensors = lm_weights.read_datasets(os.path.join(elmo_cases["chars"], "lm_weights.hdf5"))
    del tensors["CNN_high_1/b_carry"]
    path = str(tmp_path / "lm_weights.hdf5")
    lm_weights.write_datasets(tensors, path)
    with pytest.raises(lm_weights.LMWeightsError, match=r"lm_weights\.hdf5: missing dataset\(s\) CNN_high_1/b_carry"):
        read_bilm(path, cases.CONFIGS["chars"])
    # Options of another model: the token variant's weights for a character model.
    with pytest.raises(lm_weights.LMWeightsError, match="char_embed"):
        read_bilm(os.path.join(elmo_cases["tokens"], "lm_weights.hdf5"), cases.CONFIGS["chars"])


def test_wrong_shapes_and_extra_datasets_are_refused(elmo_cases, tmp_path):
    tensors = lm_weights.read_datasets(os.path.join(elmo_cases["chars"], "lm_weights.hdf5"))
    lm_weights.write_datasets({**tensors, "softmax/W": np.zeros((3, 8))}, str(tmp_path / "extra.hdf5"))
    with pytest.raises(CheckpointMismatchError, match="softmax/W"):
        load_lm_weights(cases.build(cases.CONFIGS["chars"]), str(tmp_path / "extra.hdf5"))
    wider = cases.CONFIGS["chars"].replace(lstm=cases.CONFIGS["chars"].lstm.__class__(dim=32, projection_dim=8))
    with pytest.raises(CheckpointMismatchError, match=r"RNN_0/Cell0/W_0: checkpoint has shape \[16, 96\]"):
        read_bilm(os.path.join(elmo_cases["chars"], "lm_weights.hdf5"), wider)


def test_strict_loading_leaves_a_stateful_encoders_states_alone(elmo_cases, tmp_path):
    """The LSTM states a stateful encoder keeps are not weights: a strict load
    of the original file or of ours sets every weight and neither asks for the
    states nor touches them; a weight really missing is still named."""
    path = os.path.join(elmo_cases["chars"], "lm_weights.hdf5")
    stateful = cases.build(cases.CONFIGS["chars"], stateful=True)
    states = [v for v in stateful.weights if not v.trainable]  # c and h of 2 layers, 2 directions
    assert len(states) == 8
    for variable in states:
        variable.assign(np.ones(variable.shape))
    report = load_into(stateful, path, strict=True)
    assert not report.missing and not report.unused
    assert len(report.loaded) == len(stateful.weights) - 8
    assert all(np.all(v.numpy() == 1) for v in states)
    save_weights(stateful, str(tmp_path / "ours"))
    report = load_into(cases.build(cases.CONFIGS["chars"]), str(tmp_path / "ours"), strict=True)
    assert len(report.loaded) == len(stateful.weights) - 8  # saved without the states
    kept = {v.path for v in stateful.weights} - {"bilm/char_cnn/b_cnn_1"}
    save_weights(stateful, str(tmp_path / "partial"), only=kept)
    with pytest.raises(CheckpointMismatchError, match=r"missing \['bilm/char_cnn/b_cnn_1'\], unused \[\]"):
        load_into(cases.build(cases.CONFIGS["chars"], stateful=True), str(tmp_path / "partial"), strict=True)
