"""The checkpoint layout ELMo reads beyond our own: the original
`lm_weights.hdf5` (a file, or a folder holding it), its datasets matched to our
variables by `hdf5_names`."""

from checkpoints.formats import CheckpointFormat
from checkpoints.loader import CheckpointMismatchError, load_tensors
from families.elmo.checkpoints import lm_weights, token_inputs
from families.elmo.checkpoints.hdf5_names import hdf5_name


def locate(path):
    """Our variable `path` -> (dataset name, not transposed), or None."""
    name = hdf5_name(path)
    return None if name is None else (name, False)


def read(path, model, embedding_file=None):
    """({dataset name: array} with padding rows, `locate`); a missing dataset the
    biLM needs raises, naming the file and the dataset. A token-embedding
    model takes its table from `embedding_file`, else from lm_weights.hdf5,
    else from the original's token embedding file beside it
    (`token_inputs.EMBEDDING_FILES`)."""
    tensors = lm_weights.model_tensors(path)
    config = getattr(getattr(model, "encoder", model), "config", None)
    if config is not None and config.token_embeddings and (embedding_file or "embedding" not in tensors):
        embedding_file = embedding_file or token_inputs.embedding_file_beside(path)
        if embedding_file is None:
            raise lm_weights.LMWeightsError(
                f"{lm_weights.weights_file(path)}: no dataset 'embedding' for the token-embedding model, and "
                f"no token embedding file ({' or '.join(token_inputs.EMBEDDING_FILES)}, the original's "
                "dump_token_embeddings output) beside it")
        tensors = token_inputs.with_embeddings(tensors, path, embedding_file)
    if config is not None:
        lm_weights.check_complete(tensors, config, path)
    return tensors, locate


def load_lm_weights(model, path, strict=True, embedding_file=None):
    """Assigns the original weight file at `path` to `model`'s biLM variables
    (the loader's `load_into` for this one format); returns the `LoadReport`.
    `strict`: every biLM weight set and every dataset used (a task model's
    other variables are not the file's; a stateful model's LSTM states are
    not weights and stay as they are). `embedding_file`: the original's token
    embedding file, for a token-embedding model (see `read`)."""
    report = load_tensors(model, *read(path, model, embedding_file), path, "elmo_hdf5")
    report.missing = [p for p in report.missing if hdf5_name(p) is not None]
    if strict and (report.missing or report.unused):
        raise CheckpointMismatchError(f"{path} (elmo_hdf5) does not match the model exactly: "
                                      f"missing {report.missing}, unused {report.unused}")
    return report


# Tried before our own folders (`directory`): it also answers for a folder with lm_weights.hdf5.
FORMATS = (CheckpointFormat("elmo_hdf5", lambda path, _: lm_weights.is_lm_weights(path), read,
                            directory=True),)
