"""The original's token inputs, read as it writes them: `bilm`'s
`dump_token_embeddings` runs a character biLM's CNN over each word of a
vocabulary and writes the vectors, in vocabulary order, as the one dataset
`embedding` [n_tokens, projection_dim] of an HDF5 file; its
`BidirectionalLanguageModel(options, lm_weights.hdf5, use_character_inputs=False,
embedding_weight_file=...)` then looks words up in that table (a zero padding
row prepended, ids = vocabulary index + 1) and takes the LSTMs from
lm_weights.hdf5, leaving its character CNN aside; the vocabulary size is the
table's. Here that is the token-embedding variant (`ELMoConfig.token_embeddings`):
`token_inputs_config` makes its config from the original's options and the
table, and the `elmo_hdf5` format reads the table beside lm_weights.hdf5
(`EMBEDDING_FILES`) or from the file it is given."""

import os

import numpy as np

from families.elmo.checkpoints import lm_weights

# Looked for beside lm_weights.hdf5: token_embedding_weights.hdf5, and the name
# the original's usage_token.py gives it.
EMBEDDING_FILES = ("token_embedding_weights.hdf5", "elmo_token_embeddings.hdf5")
# The character CNN's datasets: the model the table was computed with, not read.
_CHARACTER_DATASETS = ("char_embed", "CNN/", "CNN_high_", "CNN_proj/")


def embedding_file_beside(path):
    """The token embedding file beside the weight file at `path` (a file or
    its folder), or None; two of `EMBEDDING_FILES` there are refused."""
    directory = os.path.dirname(os.path.abspath(lm_weights.weights_file(path)))
    found = [os.path.join(directory, name) for name in EMBEDDING_FILES
             if os.path.isfile(os.path.join(directory, name))]
    if len(found) > 1:
        raise lm_weights.LMWeightsError(f"{directory}: two token embedding files, {' and '.join(found)}: "
                                        "give the one to read")
    return found[0] if found else None


def _table(path, take):
    """`take` of the `embedding` dataset [n_tokens, dim] of the file at `path`;
    a file that has none is named."""
    import h5py
    try:
        with h5py.File(path, "r") as f:
            table = f.get("embedding")
            if not isinstance(table, h5py.Dataset):
                raise lm_weights.LMWeightsError(
                    f"{path}: no dataset 'embedding' (has {sorted(f)}): not a token embedding file "
                    "as the original's dump_token_embeddings writes one")
            if table.ndim != 2:
                raise lm_weights.LMWeightsError(f"{path}: 'embedding' has shape {list(table.shape)}, expected "
                                                "[n_tokens, projection_dim]")
            return take(table)
    except OSError as e:
        raise lm_weights.LMWeightsError(f"{path}: not a readable HDF5 file ({e})") from None


def read_embeddings(path):
    """float32 [n_tokens, dim]: the `embedding` dataset of the file at `path`."""
    return _table(path, lambda table: table[...].astype(np.float32))


def token_inputs_config(config, embedding_file):
    """The token-embedding variant of the original's options `config` for the
    table in `embedding_file`: no character CNN, `n_tokens_vocab` the table's
    rows (as the original reads it), the table's width checked."""
    rows, width = _table(embedding_file, lambda table: table.shape)
    if width != config.lstm.projection_dim:
        raise lm_weights.LMWeightsError(f"{embedding_file}: 'embedding' is {width} wide, the options' "
                                        f"lstm.projection_dim is {config.lstm.projection_dim}")
    return config.replace(char_cnn=None, n_tokens_vocab=int(rows))


def with_embeddings(tensors, weights_path, embedding_file):
    """`tensors` (`lm_weights.model_tensors` of the file at `weights_path`)
    with `embedding` (padding row prepended) from `embedding_file` and the
    character CNN's datasets set aside, as the original reads them."""
    if "embedding" in tensors:
        raise lm_weights.LMWeightsError(f"{lm_weights.weights_file(weights_path)} has an 'embedding' of its own "
                                        f"beside {embedding_file}: which one to read?")
    table = read_embeddings(embedding_file)
    kept = {name: value for name, value in tensors.items() if not name.startswith(_CHARACTER_DATASETS)}
    return {**kept, "embedding": np.concatenate([np.zeros_like(table[:1]), table])}
