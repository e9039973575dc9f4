"""The checkpoint layouts BERT reads: the original TF1 release, Hugging Face,
the Model Garden's TF2 encoder and keras-hub presets."""

import json
import os

from checkpoints import tf_checkpoint
from checkpoints.formats import CheckpointFormat
from checkpoints.huggingface import is_hf_dir
from families.bert.checkpoints import keras_hub_preset, model_garden
from families.bert.checkpoints.hf_names import hf_name
from families.bert.checkpoints.huggingface import read_hf_tensors
from families.bert.checkpoints.tf1_names import tf1_name


def _is_bert_hf_dir(path, tf_names):
    """A Hugging Face directory whose config is a BERT's (or names no model type)."""
    if not is_hf_dir(path):
        return False
    config_file = os.path.join(path, "config.json")
    if not os.path.isfile(config_file):
        return True
    with open(config_file, encoding="utf-8") as f:
        return json.load(f).get("model_type", "bert") == "bert"


def _hf_key(path):
    tf1 = tf1_name(path)
    if tf1 is None:
        return None
    name, transposed_hf = hf_name(tf1[0])
    return name, tf1[1] != transposed_hf


def _tf_tensors(path):
    return tf_checkpoint.read_tensors(tf_checkpoint.resolve_prefix(path))


def _read_model_garden(path, model):
    tensors = _tf_tensors(path)
    return model_garden.to_tf1(tensors, model_garden.encoder_root(tensors)), tf1_name


FORMATS = (
    CheckpointFormat("keras_hub", lambda path, _: keras_hub_preset.is_preset(path),
                     lambda path, model: (keras_hub_preset.read_tensors(path), lambda p: (p, False)),
                     directory=True),
    CheckpointFormat("hf", _is_bert_hf_dir, lambda path, model: (read_hf_tensors(path), _hf_key),
                     directory=True),
    CheckpointFormat("tf1", lambda path, names: names is not None and any(n.startswith("bert/")
                                                                        for n in names),
                     lambda path, model: (_tf_tensors(path), tf1_name)),
    CheckpointFormat("model_garden",
                     lambda path, names: names is not None and model_garden.encoder_root(names) is not None,
                     _read_model_garden, by_structure=True),
)
