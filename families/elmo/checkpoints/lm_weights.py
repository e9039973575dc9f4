"""The original biLM weight file, `lm_weights.hdf5`: one float32 dataset per
variable under its TF1 name (groups for the '/'s), no softmax (the original's
`dump_weights` leaves it out), and the `options.json` beside it."""

import os

import numpy as np

from checkpoints.damaged_files import reading
from families.elmo.checkpoints.hdf5_names import PADDED_TABLES, hdf5_name
from utils.files import atomic_output

WEIGHTS_FILE = "lm_weights.hdf5"


class LMWeightsError(ValueError):
    """A weight file that does not hold what the biLM needs; names the file and the dataset."""


def weights_file(path):
    """`path` itself, or the `lm_weights.hdf5` in the directory `path`."""
    return os.path.join(path, WEIGHTS_FILE) if os.path.isdir(path) else path


def is_lm_weights(path):
    """True if `path` (or the weight file in it) is an HDF5 file with the
    original's LSTM groups."""
    import h5py
    path = weights_file(path)
    if not os.path.isfile(path) or not h5py.is_hdf5(path):
        return False
    with reading(path, "an HDF5 file"), h5py.File(path, "r") as f:
        return "RNN_0" in f


def read_datasets(path):
    """{dataset name: array} of every dataset in the file, as stored."""
    import h5py
    path = weights_file(path)
    tensors = {}
    with reading(path, "an HDF5 file"), h5py.File(path, "r") as f:
        f.visititems(lambda name, item: tensors.__setitem__(name, item[...])
                     if isinstance(item, h5py.Dataset) else None)
    return tensors


def write_datasets(tensors, path):
    """Writes {dataset name: array} as float32 datasets, atomically: a reader
    never sees half a file."""
    import h5py
    with atomic_output(weights_file(path), "wb") as f, h5py.File(f, "w") as h5:
        for name in sorted(tensors):
            h5.create_dataset(name, data=np.asarray(tensors[name], np.float32))


def model_tensors(path):
    """{dataset name: array} oriented for our variables: the embedding tables
    with the zero padding row prepended, as the original does at load."""
    tensors = read_datasets(path)
    for name in PADDED_TABLES:
        if name in tensors:
            table = tensors[name]
            tensors[name] = np.concatenate([np.zeros_like(table[:1]), table])
    return tensors


def datasets_of(model, only=None):
    """{dataset name: array} of a biLM's variables (all, or the paths in
    `only`), the padding rows taken off again."""
    tensors = {}
    for variable in model.weights:
        name = hdf5_name(variable.path)
        if name is not None and (only is None or variable.path in only):
            value = np.asarray(variable.numpy())
            tensors[name] = value[1:] if name in PADDED_TABLES else value
    return tensors


def required(config):
    """The dataset names a biLM of `config` cannot run without."""
    names = []
    if config.token_embeddings:
        names.append("embedding")
    else:
        cnn = config.char_cnn
        names.append("char_embed")
        names += [f"CNN/{w}_cnn_{i}" for i in range(len(cnn.filters)) for w in "Wb"]
        names += [f"CNN_high_{i}/{w}" for i in range(cnn.n_highway or 0)
                  for w in ("W_carry", "b_carry", "W_transform", "b_transform")]
        if cnn.n_filters != config.lstm.projection_dim:
            names += ["CNN_proj/W_proj", "CNN_proj/b_proj"]
    projected = config.lstm.projection_dim < config.lstm.dim
    for direction in range(2):
        for layer in range(config.lstm.num_layers):
            root = f"RNN_{direction}/RNN/MultiRNNCell/Cell{layer}/LSTMCell"
            names += [f"{root}/W_0", f"{root}/B"] + ([f"{root}/W_P_0"] if projected else [])
    return names


def check_complete(tensors, config, path):
    """Raises `LMWeightsError` naming the file and the first missing datasets."""
    missing = [name for name in required(config) if name not in tensors]
    if missing:
        raise LMWeightsError(f"{weights_file(path)}: missing dataset(s) {', '.join(missing[:5])}"
                             + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
                             + (" (a token-embedding options.json for a character model?)"
                                if "embedding" in missing else ""))
