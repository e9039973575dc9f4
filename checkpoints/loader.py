"""`load_into`: any supported checkpoint -> the variables of one of our models.

Every format is reduced to "where does the value of our variable `path` live
in the source, and is it stored transposed", so matching, shape checks and
the report of what was not loaded are written once.
"""

import dataclasses
import os

import numpy as np

from families.bert.checkpoints import keras_hub_preset, model_garden
from checkpoints import ours, tf_checkpoint
from families.xlnet.checkpoints import huggingface as xlnet_huggingface
from families.bert.checkpoints.hf_names import hf_name
from checkpoints.huggingface import is_hf_dir, read_weight_file
from families.bert.checkpoints.huggingface import read_hf_tensors
from families.bert.checkpoints.tf1_names import tf1_name
from families.xlnet.checkpoints.hf_names import hf_to_tf1
from families.xlnet.checkpoints.model_garden_names import model_garden_to_tf1, network_root
from families.xlnet.checkpoints.tf1_names import is_xlnet_tf1, with_our_logit_scope, xlnet_tf1_name
from families.xlnet.config import XLNetConfig

FORMATS = ("ours", "trainer", "tf1", "hf", "model_garden", "keras_hub", "xlnet_tf1", "xlnet_hf",
           "xlnet_model_garden")
XLNET_FORMATS = ("xlnet_tf1", "xlnet_hf", "xlnet_model_garden")


class CheckpointMismatchError(ValueError):
    """A checkpoint that does not fit the model; the message names each variable."""


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


def detect_format(path):
    if not os.path.exists(path) and not os.path.exists(path + ".index"):
        raise FileNotFoundError(f"checkpoint not found: {path!r}")
    if ours.is_ours(path):
        return "ours"
    if keras_hub_preset.is_preset(path):
        return "keras_hub"
    if is_hf_dir(path):
        return "xlnet_hf" if xlnet_huggingface.is_xlnet_hf_dir(path) else "hf"
    if os.path.isdir(path) and os.path.isfile(os.path.join(path, ours.WEIGHTS_FILE)):
        return "ours"
    if tf_checkpoint.is_tf_checkpoint(path):
        names = tf_checkpoint.list_names(tf_checkpoint.resolve_prefix(path))
        if any(n.startswith("bert/") for n in names):
            return "tf1"
        if is_xlnet_tf1(names):
            return "xlnet_tf1"
        if network_root(names) is not None:
            return "xlnet_model_garden"
        if any(n.startswith("model/") and n.endswith("/.ATTRIBUTES/VARIABLE_VALUE") for n in names):
            return "trainer"
        if model_garden.encoder_root(names) is not None:
            return "model_garden"
        raise CheckpointMismatchError(f"{path}: TensorFlow checkpoint of an unknown layout")
    raise CheckpointMismatchError(
        f"{path}: not a checkpoint we can read (expected one of {FORMATS}: a TF checkpoint "
        "prefix or directory, a Hugging Face directory, a keras-hub preset directory, or "
        "weights.safetensors)")


def xlnet_tf1_tensors(path, fmt, untie_r=True):
    """{original TF1 name: array} of an XLNet checkpoint in any of `XLNET_FORMATS`,
    ours or a trainer's (`untie_r` says how Hugging Face's per-layer biases are to
    be kept). Our XLNet weights and a trainer's are read by TF1 name too, so that
    they load whatever the layers of the model that saved them were called."""
    if fmt == "ours":
        tensors = _by_tf1_name(ours.read_weights(path))
    elif fmt == "trainer":
        tensors = _by_tf1_name(trainer_weights(path))
    elif fmt == "xlnet_hf":
        tensors = hf_to_tf1(read_weight_file(path), untie_r)
    else:
        tensors = tf_checkpoint.read_tensors(tf_checkpoint.resolve_prefix(path))
        if fmt == "xlnet_model_garden":
            tensors = model_garden_to_tf1(tensors, network_root(tensors))
    return with_our_logit_scope(tensors)


def trainer_weights(path):
    """{model variable path: array} of a trainer checkpoint, which also holds optimizer
    slots and the input iterator's state (not an array): the model's weights only."""
    prefix = tf_checkpoint.resolve_prefix(path)
    names = [n for n in tf_checkpoint.list_names(prefix) if n.startswith("model/")]
    by_path = {tf_checkpoint.object_key_to_path(k, "model"): v
               for k, v in tf_checkpoint.read_tensors(prefix, names).items()}
    by_path.pop(None, None)
    return by_path


def _by_tf1_name(by_path):
    return {xlnet_tf1_name(p)[0]: v for p, v in by_path.items() if xlnet_tf1_name(p)}


def _holds_xlnet(path, config):
    """Our weights of an XLNet: the model's config says so, or the saved config beside."""
    directory = os.path.dirname(os.path.abspath(ours.weights_file(path)))
    return isinstance(config, XLNetConfig) or os.path.isfile(os.path.join(directory, ours.XLNET_CONFIG_FILE))


def _config_of(model):
    """The encoder config of a model (a task model, a pretrainer, `XLNetParts`), or None."""
    return getattr(getattr(model, "encoder", model), "config", None)


def _source_tensors(path, fmt, model):
    """{source key: array} plus a function our_path -> (source key, transposed) or None."""
    config = _config_of(model)
    if fmt in XLNET_FORMATS or (fmt == "ours" and _holds_xlnet(path, config)):
        return xlnet_tf1_tensors(path, fmt, getattr(config, "untie_r", True)), xlnet_tf1_name
    if fmt == "ours":
        return ours.read_weights(path), lambda p: (p, False)
    if fmt == "keras_hub":
        return keras_hub_preset.read_tensors(path), lambda p: (p, False)
    if fmt == "hf":
        def hf_key(p):
            tf1 = tf1_name(p)
            if tf1 is None:
                return None
            name, transposed_hf = hf_name(tf1[0])
            return name, tf1[1] != transposed_hf
        return read_hf_tensors(path), hf_key
    if fmt == "trainer":
        by_path = trainer_weights(path)
        if _holds_xlnet(path, config) and not any(v.path in by_path for v in model.weights):
            # A pretraining run's checkpoint into a fine-tuning model, whose layers
            # are named otherwise (the pretrainer's are `transformer`, `lm_loss`).
            return with_our_logit_scope(_by_tf1_name(by_path)), xlnet_tf1_name
        return by_path, lambda p: (p, False)
    tensors = tf_checkpoint.read_tensors(tf_checkpoint.resolve_prefix(path))
    if fmt == "model_garden":
        tensors = model_garden.to_tf1(tensors, model_garden.encoder_root(tensors))
    return tensors, tf1_name


def read_for_model(model, path, fmt=None):
    """({our path: array oriented for us}, unused source keys, format)."""
    fmt = fmt or detect_format(path)
    return (*_match(model, *_source_tensors(path, fmt, model)), fmt)


def _match(model, tensors, locate):
    """({our path: array oriented for us}, unused source keys)."""
    found, used = {}, set()
    for variable in model.weights:
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
    errors = []
    for variable in model.weights:
        value = values.get(variable.path)
        if value is not None and tuple(value.shape) != tuple(variable.shape):
            hint = _vocabulary_hint(model) if (
                variable.path.endswith(("word_embeddings/embeddings", "word_embedding/embeddings"))
                and value.shape[0] != variable.shape[0]) else ""
            errors.append(f"{variable.path}: checkpoint has shape {list(value.shape)}, "
                          f"model expects {list(variable.shape)}{hint}")
    if errors:
        raise CheckpointMismatchError(f"{path} ({fmt}) does not fit the model:\n  " + "\n  ".join(errors))
    missing = [v.path for v in model.weights if v.path not in values]
    if strict and (missing or unused):
        raise CheckpointMismatchError(
            f"{path} ({fmt}) does not match the model exactly: missing {missing}, unused {unused}")
    for variable in model.weights:
        if variable.path in values:
            variable.assign(values[variable.path].astype(variable.dtype))
    return LoadReport(path, fmt, sorted(values), missing, unused)
