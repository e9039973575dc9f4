"""`load_into`: any supported checkpoint -> the variables of one of our models.

The formats read are our own (`SHARED_FORMATS`) and those each registered
family lists in its record (`checkpoint_formats`). Every format is reduced to
"where does the value of our variable `path` live in the source, and is it
stored transposed", so matching, shape checks and the report of what was not
loaded are written once.
"""

import dataclasses
import os

import numpy as np

from checkpoints import ours, tf_checkpoint
from checkpoints.model_weights import checkpointed_weights
from families import registry

SHARED_FORMATS = ("ours", "trainer")  # our weight files and our trainer's checkpoints, any family


class CheckpointMismatchError(ValueError):
    """A checkpoint that does not fit the model; the message names each variable."""


class CheckpointFamilyError(CheckpointMismatchError):
    """A checkpoint of another model family than the config's."""


@dataclasses.dataclass
class LoadReport:
    source: str
    format: str
    loaded: list
    missing: list  # model variables the checkpoint does not have
    unused: list  # checkpoint tensors no model variable took

    def summary(self):
        lines = [f"loaded {len(self.loaded)} variables from {self.format} checkpoint {self.source}"]
        if self.missing:
            lines.append(f"not in checkpoint ({len(self.missing)}, left as initialised): "
                         + ", ".join(self.missing))
        if self.unused:
            lines.append(f"in checkpoint but unused ({len(self.unused)}): " + ", ".join(self.unused))
        return "\n".join(lines)


def family_formats():
    """Every registered family's `CheckpointFormat`s, in registry order."""
    return [fmt for family in registry.families() for fmt in family.checkpoint_formats]


def format_names():
    """The names of every format `detect_format` can answer."""
    return SHARED_FORMATS + tuple(fmt.name for fmt in family_formats())


def detect_format(path):
    """The name of the format of the checkpoint at `path`: ours, a family's
    folder layout, our weight folder, a family's TensorFlow layout, our
    trainer's checkpoint, then the layouts recognised by structure alone."""
    if not os.path.exists(path) and not os.path.exists(path + ".index"):
        raise FileNotFoundError(f"checkpoint not found: {path!r}")
    if ours.is_ours(path):
        return "ours"
    formats = family_formats()
    for fmt in formats:
        if fmt.directory and fmt.detect(path, None):
            return fmt.name
    if os.path.isdir(path) and os.path.isfile(os.path.join(path, ours.WEIGHTS_FILE)):
        return "ours"
    if tf_checkpoint.is_tf_checkpoint(path):
        names = tf_checkpoint.list_names(tf_checkpoint.resolve_prefix(path))
        for fmt in formats:
            if not fmt.directory and not fmt.by_structure and fmt.detect(path, names):
                return fmt.name
        if any(n.startswith("model/") and n.endswith("/.ATTRIBUTES/VARIABLE_VALUE") for n in names):
            return "trainer"
        for fmt in formats:
            if fmt.by_structure and fmt.detect(path, names):
                return fmt.name
        raise CheckpointMismatchError(
            f"{path}: a TensorFlow checkpoint of no layout we read (tried {', '.join(format_names())})")
    raise CheckpointMismatchError(
        f"{path}: not a checkpoint we can read (tried {', '.join(format_names())}: a TF checkpoint "
        "prefix or directory, a Hugging Face directory, a keras-hub preset directory, or "
        "weights.safetensors)")


def trainer_weights(path):
    """{model variable path: array} of a trainer checkpoint, which also holds optimizer
    slots and the input iterator's state (not an array): the model's weights only."""
    prefix = tf_checkpoint.resolve_prefix(path)
    names = [n for n in tf_checkpoint.list_names(prefix) if n.startswith("model/")]
    by_path = {tf_checkpoint.object_key_to_path(k, "model"): v
               for k, v in tf_checkpoint.read_tensors(prefix, names).items()}
    by_path.pop(None, None)
    return by_path


def families_beside(path):
    """The families whose config file lies beside the checkpoint at `path`
    (in it, for a folder), in registry order."""
    directory = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    return [family for family in registry.families()
            if os.path.isfile(os.path.join(directory, family.config_file))]


def format_family(fmt):
    """The family whose record lists the format named `fmt`, or None (ours, a trainer's)."""
    return next((family for family in registry.families()
                 if any(candidate.name == fmt for candidate in family.checkpoint_formats)), None)


def check_family(path, fmt, family):
    """Raises `CheckpointFamilyError` when the checkpoint at `path` (format
    `fmt`) belongs to another family than `family`, the config's: a layout of
    another family's, or our weights with only other families' config files
    beside them. Read on, such a checkpoint fails on a missing config field or
    loads as a model it is not."""
    owner = format_family(fmt)
    owners = [owner] if owner else families_beside(path)
    if not owners or family.name in {f.name for f in owners}:
        return
    how = fmt if owner else f"{fmt}, with {owners[0].config_file} beside it"
    raise CheckpointFamilyError(
        f"{path}: a checkpoint of the {owners[0].title} family ({how}), but the config is of the "
        f"{family.title} family ({family.config_file}): give a checkpoint and a config of one family")


def _model_family(model):
    """The family of `model`'s encoder config, or None."""
    try:
        return registry.family_of(_config_of(model))
    except registry.UnknownFamilyError:
        return None


def _saved_by(path, model):
    """The family whose weights our checkpoint at `path` holds: the model's,
    unless only other families' config files lie beside it."""
    beside, family = families_beside(path), _model_family(model)
    if not beside or (family is not None and family.name in {f.name for f in beside}):
        return family
    return beside[0]


def _config_of(model):
    """The encoder config of a model (a task model, a pretrainer, `XLNetParts`), or None."""
    return getattr(getattr(model, "encoder", model), "config", None)


def _source_tensors(path, fmt, model):
    """{source key: array} plus a function our_path -> (source key, transposed) or None."""
    if fmt in SHARED_FORMATS:
        by_path = ours.read_weights(path) if fmt == "ours" else trainer_weights(path)
        family = _saved_by(path, model)
        read = family and family.saved_weights and family.saved_weights(fmt, by_path, model)
        return read or (by_path, lambda p: (p, False))
    for candidate in family_formats():
        if candidate.name == fmt:
            return candidate.read(path, model)
    raise CheckpointMismatchError(f"{path}: unknown checkpoint format {fmt!r}; expected one of "
                                  f"{format_names()}")


def read_for_model(model, path, fmt=None):
    """({our path: array oriented for us}, unused source keys, format); a
    checkpoint of another family than the model's is refused first."""
    fmt = fmt or detect_format(path)
    family = _model_family(model)
    if family is not None:
        check_family(path, fmt, family)
    return (*_match(model, *_source_tensors(path, fmt, model)), fmt)


def _match(model, tensors, locate):
    """({our path: array oriented for us}, unused source keys)."""
    found, used = {}, set()
    for variable in checkpointed_weights(model):
        where = locate(variable.path)
        if where is None or where[0] not in tensors:
            continue
        key, transposed = where
        value = np.asarray(tensors[key])
        found[variable.path] = value.T if transposed else value
        used.add(key)
    return found, sorted(set(tensors) - used)


def load_into(model, path, strict=False, fmt=None):
    """Assigns checkpoint values to `model`'s variables, matched by name.

    A shape mismatch always raises, naming the variable and both shapes. With
    `strict`, any model variable the checkpoint lacks, or any unused tensor
    in the checkpoint, raises too; otherwise they are listed in the report.
    State a model carries between calls is not a weight (`checkpointed_weights`):
    never missing, never set.

    Example:
    >>> report = load_into(BertEncoder(config), "uncased_L-12_H-768_A-12/bert_model.ckpt")
    >>> print(report.summary())
    """
    values, unused, fmt = read_for_model(model, path, fmt)
    return _assign(model, values, unused, path, fmt, strict)


def load_tensors(model, tensors, locate, source, fmt, strict=False):
    """`load_into` for tensors already in memory: {key: array} and `locate`,
    our path -> (key, transposed) or None; `source` and `fmt` name them in messages."""
    return _assign(model, *_match(model, tensors, locate), source, fmt, strict)


def _vocabulary_hint(model):
    """What to check when the word embeddings differ in rows, in the family's names."""
    config = _config_of(model)
    field, flag = getattr(config, "vocab_size_field", "vocab_size"), getattr(
        config, "vocab_file_flag", "--vocab_file")
    return f" ({field} differs: check {flag} and the config's {field})"


def _assign(model, values, unused, path, fmt, strict):
    weights = checkpointed_weights(model)
    errors = []
    for variable in weights:
        value = values.get(variable.path)
        if value is not None and tuple(value.shape) != tuple(variable.shape):
            hint = _vocabulary_hint(model) if (
                variable.path.endswith(("word_embeddings/embeddings", "word_embedding/embeddings"))
                and value.shape[0] != variable.shape[0]) else ""
            errors.append(f"{variable.path}: checkpoint has shape {list(value.shape)}, "
                          f"model expects {list(variable.shape)}{hint}")
    if errors:
        raise CheckpointMismatchError(f"{path} ({fmt}) does not fit the model:\n  " + "\n  ".join(errors))
    missing = [v.path for v in weights if v.path not in values]
    if strict and (missing or unused):
        raise CheckpointMismatchError(
            f"{path} ({fmt}) does not match the model exactly: missing {missing}, unused {unused}")
    for variable in weights:
        if variable.path in values:
            variable.assign(values[variable.path].astype(variable.dtype))
    return LoadReport(path, fmt, sorted(values), missing, unused)
