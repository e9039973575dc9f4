"""The checkpoint layouts GPT reads beyond our own (the original release,
Hugging Face), each read into the original's names and then onto our
variable paths (`families.gpt.checkpoints.names`)."""

from checkpoints import ours
from checkpoints.formats import CheckpointFormat
from checkpoints.loader import trainer_weights
from families.gpt.checkpoints import huggingface, release
from families.gpt.checkpoints.names import from_ours, to_ours


def original_tensors(path, fmt, n_layer):
    """({original name: array}, [tensors of no GPT layout]) of a GPT checkpoint
    in one of `FORMATS`, ours or a trainer's (`n_layer` names our blocks)."""
    if fmt == "gpt_release":
        return release.read_tensors(path), []
    if fmt == "gpt_hf":
        return huggingface.read_tensors(path, huggingface.read_config(path).n_special)
    by_path = ours.read_weights(path) if fmt == "ours" else trainer_weights(path)
    tensors = from_ours(by_path, n_layer)
    return tensors, sorted(set(by_path) - set(to_ours(tensors)))


def read_by_path(path, fmt, n_layer):
    """({our variable path: array}, locate) of a GPT checkpoint, as
    `CheckpointFormat.read` gives them: tensors of no GPT layout are kept under
    their own names, with no value, so the load report lists them as unused."""
    tensors, unused = original_tensors(path, fmt, n_layer)
    by_path = to_ours(tensors)
    by_path.update({name: None for name in unused})
    return by_path, lambda variable_path: (variable_path, False)


def foreign_config(directory):
    """The config of a GPT layout in `directory` (a Hugging Face `config.json`,
    the release's shapes), or None."""
    if huggingface.is_gpt_hf_dir(directory):
        return huggingface.read_config(directory)
    if release.is_release_dir(directory):
        return release.read_config(directory)
    return None


def _reader(fmt):
    def read(path, model):
        return read_by_path(path, fmt, getattr(model, "encoder", model).config.n_layer)
    return read


FORMATS = (
    CheckpointFormat("gpt_release", lambda path, _: release.is_release_dir(path), _reader("gpt_release"),
                     directory=True),
    CheckpointFormat("gpt_hf", lambda path, _: huggingface.is_gpt_hf_dir(path), _reader("gpt_hf"),
                     directory=True),
)
