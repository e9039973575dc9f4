"""keras-hub BERT presets, read and written with json + h5py only (keras-hub
stays a test dependency).

The layout is what `BertBackbone.save_to_preset` + `BertTokenizer.save_to_preset`
write (keras-hub 0.32):

    config.json        {"module": ..., "class_name": "BertBackbone", "config": {...},
                        "registered_name": "keras_hub>BertBackbone"}
    model.weights.h5   keras' weights layout: one group per layer, named after its
                       class in snake case (`transformer_encoder`, `transformer_encoder_1`,
                       ...), each variable at `<group>/vars/<index>`
    tokenizer.json     the serialized `BertTokenizer` (lowercase, strip_accents)
    assets/tokenizer/vocabulary.txt
    metadata.json      keras / keras-hub versions, parameter count, date saved

keras-hub's `BertBackbone` always computes GELU as its tanh approximation
(`gelu_new` here) with LayerNorm epsilon 1e-12, and has one dropout rate. A
preset read here therefore gets `hidden_act="gelu_new"`, unless it was written
here: `metadata.json` then also keeps our config (`bert_garden_config`), so that
ours -> keras-hub -> ours gives back the same model (architecture fields always
come from `config.json`). keras-hub rewrites
`metadata.json` whenever it saves a backbone, which drops that key with it.
"""

import datetime
import io
import json
import os

import numpy as np

from families.bert.config import BertConfig, ConfigError
from utils.files import atomic_write_bytes, atomic_write_text, read_json_object

CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.weights.h5"
TOKENIZER_FILE = "tokenizer.json"
VOCAB_FILE = os.path.join("assets", "tokenizer", "vocabulary.txt")
METADATA_FILE = "metadata.json"
BACKBONE = "BertBackbone"
# The keras-hub release whose layout this module writes.
LAYOUT_VERSION = "0.32.0"
_OUR_CONFIG_KEY = "bert_garden_config"
# Our config fields that a keras-hub BertBackbone config cannot express.
_OUR_FIELDS = ("hidden_act", "hidden_dropout_prob", "attention_probs_dropout_prob",
               "initializer_range", "layer_norm_eps")
_TANH_GELU = ("gelu_new", "gelu_tanh")
_KERAS_HUB_LAYER_NORM_EPS = 1e-12


class PresetError(ValueError):
    """A keras-hub preset we cannot read or write; the message names the file."""


def is_preset(path):
    """A directory with a keras-hub `config.json` (or `config.json` beside
    `model.weights.h5`): a preset, possibly damaged, that this module reads."""
    config_file = os.path.join(path, CONFIG_FILE)
    if not (os.path.isdir(path) and os.path.isfile(config_file)):
        return False
    if os.path.isfile(os.path.join(path, WEIGHTS_FILE)):
        return True
    try:
        with open(config_file, encoding="utf-8") as f:
            values = json.load(f)
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(values, dict) and str(values.get("registered_name", "")).startswith("keras_hub>")


def _load_json(path, name):
    return read_json_object(os.path.join(path, name), PresetError, "is missing from the keras-hub preset")


def read_config(path):
    """`BertConfig` of the preset directory `path`."""
    file = os.path.join(path, CONFIG_FILE)
    values = _load_json(path, CONFIG_FILE)
    if values.get("class_name") != BACKBONE:
        raise PresetError(f"{file}: class_name {values.get('class_name')!r} is not {BACKBONE!r}; "
                          "only BERT presets can be read")
    backbone = values.get("config")
    keys = ("vocabulary_size", "num_layers", "num_heads", "hidden_dim", "intermediate_dim",
            "max_sequence_length", "num_segments")
    missing = [k for k in keys if not isinstance(backbone, dict) or k not in backbone]
    if missing:
        raise PresetError(f"{file}: config lacks {missing}")
    dropout = backbone.get("dropout", 0.1)
    fields = dict(
        vocab_size=backbone["vocabulary_size"], hidden_size=backbone["hidden_dim"],
        num_hidden_layers=backbone["num_layers"], num_attention_heads=backbone["num_heads"],
        intermediate_size=backbone["intermediate_dim"], hidden_act=_TANH_GELU[0],
        hidden_dropout_prob=dropout, attention_probs_dropout_prob=dropout,
        max_position_embeddings=backbone["max_sequence_length"],
        type_vocab_size=backbone["num_segments"], layer_norm_eps=_KERAS_HUB_LAYER_NORM_EPS)
    metadata_file = os.path.join(path, METADATA_FILE)
    if os.path.isfile(metadata_file):
        ours = _load_json(path, METADATA_FILE).get(_OUR_CONFIG_KEY) or {}
        fields.update({k: v for k, v in ours.items() if k in _OUR_FIELDS})
    try:
        return BertConfig(**fields)
    except (ConfigError, TypeError) as e:
        raise PresetError(f"{file}: {e}") from None


def _weight_table(num_layers):
    """[(h5 group, layer name, [(our variable path, kind)])] in the order keras saves
    `BertBackbone`'s layers. `kind` says how the tensor is shaped in keras-hub:
    its attention projections are EinsumDense kernels split per head."""
    table = [
        ("layers/reversible_embedding", "token_embedding",
         [("embeddings/word_embeddings/embeddings", None)]),
        ("layers/position_embedding", "position_embedding",
         [("embeddings/position_embeddings/embeddings", None)]),
        ("layers/embedding", "segment_embedding", [("embeddings/token_type_embeddings/embeddings", None)]),
        ("layers/layer_normalization", "embeddings_layer_norm",
         [("embeddings/layer_norm/gamma", None), ("embeddings/layer_norm/beta", None)]),
    ]
    for i in range(num_layers):
        group, ours = "layers/transformer_encoder" + (f"_{i}" if i else ""), f"transformer_layer_{i}/"
        attention = group + "/_self_attention_layer"
        for projection in ("query", "key", "value"):
            table.append((f"{attention}/{projection}_dense", projection,
                          [(f"{ours}self_attention/{projection}/kernel", "heads_out"),
                           (f"{ours}self_attention/{projection}/bias", "heads_bias")]))
        table += [
            (attention + "/output_dense", "attention_output",
             [(ours + "self_attention/output/kernel", "heads_in"), (ours + "self_attention/output/bias", None)]),
            (group + "/_self_attention_layer_norm", "self_attention_layer_norm",
             [(ours + "attention_layer_norm/gamma", None), (ours + "attention_layer_norm/beta", None)]),
            (group + "/_feedforward_intermediate_dense", "feedforward_intermediate_dense",
             [(ours + "intermediate/kernel", None), (ours + "intermediate/bias", None)]),
            (group + "/_feedforward_output_dense", "feedforward_output_dense",
             [(ours + "output/kernel", None), (ours + "output/bias", None)]),
            (group + "/_feedforward_layer_norm", "feedforward_layer_norm",
             [(ours + "output_layer_norm/gamma", None), (ours + "output_layer_norm/beta", None)]),
        ]
    table.append(("layers/dense", "pooled_dense", [("pooler/kernel", None), ("pooler/bias", None)]))
    return table


def backbone_paths(num_layers):
    """Our variable paths that make up a keras-hub `BertBackbone`."""
    return [path for _, _, variables in _weight_table(num_layers) for path, _ in variables]


def _to_ours(value, kind):
    if kind == "heads_out":  # [hidden, heads, head_size] -> [hidden, hidden]
        return value.reshape(value.shape[0], -1)
    if kind == "heads_bias":  # [heads, head_size] -> [hidden]
        return value.reshape(-1)
    if kind == "heads_in":  # [heads, head_size, hidden] -> [hidden, hidden]
        return value.reshape(-1, value.shape[-1])
    return value


def _to_keras_hub(value, kind, heads):
    if kind == "heads_out":
        return value.reshape(value.shape[0], heads, -1)
    if kind == "heads_bias":
        return value.reshape(heads, -1)
    if kind == "heads_in":
        return value.reshape(heads, -1, value.shape[-1])
    return value


def _read_h5(file):
    import h5py
    datasets = {}

    def visit(name, item):
        if isinstance(item, h5py.Dataset):
            value = item[()]
            if item.attrs.get("dtype") == "bfloat16":  # keras stores bfloat16 as raw 16-bit words
                import ml_dtypes
                value = value.view(ml_dtypes.bfloat16)
            datasets[name] = np.asarray(value)

    try:
        with h5py.File(file, "r") as h5:
            h5.visititems(visit)
    except OSError as e:
        raise PresetError(f"{file}: not a readable HDF5 weights file ({e})") from None
    return datasets


def read_tensors(path):
    """{our variable path: array, oriented and shaped for us}; h5 datasets that no
    variable of ours takes keep their h5 path as key (reported as unused)."""
    config = read_config(path)
    file = os.path.join(path, WEIGHTS_FILE)
    if not os.path.isfile(file):
        raise PresetError(f"{file}: missing from the keras-hub preset")
    datasets = _read_h5(file)
    tensors = {}
    for group, _, variables in _weight_table(config.num_hidden_layers):
        for index, (ours, kind) in enumerate(variables):
            value = datasets.pop(f"{group}/vars/{index}", None)
            if value is None:
                continue
            try:
                tensors[ours] = _to_ours(value, kind)
            except ValueError:
                raise PresetError(f"{file}: {group}/vars/{index} ({ours}) has shape "
                                  f"{list(value.shape)}, which cannot be {ours}") from None
    tensors.update(datasets)
    return tensors


def _backbone_config(config):
    """The serialized `BertBackbone`, as keras-hub writes it to `config.json`."""
    if config.hidden_act not in ("gelu",) + _TANH_GELU:
        raise PresetError(f"keras-hub's BertBackbone computes GELU; hidden_act "
                          f"{config.hidden_act!r} cannot be written as a keras-hub preset")
    if config.layer_norm_eps != _KERAS_HUB_LAYER_NORM_EPS:
        raise PresetError(f"keras-hub's BertBackbone fixes layer_norm_eps at "
                          f"{_KERAS_HUB_LAYER_NORM_EPS}; this model has {config.layer_norm_eps}")
    if config.causal_attention:
        raise PresetError("keras-hub's BertBackbone attends both ways; a causal_attention "
                          "(left-to-right) model cannot be written as a keras-hub preset")
    return {
        "module": "keras_hub.src.models.bert.bert_backbone",
        "class_name": BACKBONE,
        "config": {
            "name": "bert_backbone", "trainable": True,
            "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
                      "registered_name": None},
            "vocabulary_size": config.vocab_size, "num_layers": config.num_hidden_layers,
            "num_heads": config.num_attention_heads, "hidden_dim": config.hidden_size,
            "intermediate_dim": config.intermediate_size, "dropout": config.hidden_dropout_prob,
            "max_sequence_length": config.max_position_embeddings,
            "num_segments": config.type_vocab_size,
        },
        "registered_name": "keras_hub>" + BACKBONE,
    }


def _tokenizer_config(do_lower_case):
    """The serialized `BertTokenizer`: the original uncased models lower-case and
    strip accents, cased ones do neither."""
    return {
        "module": "keras_hub.src.models.bert.bert_tokenizer",
        "class_name": "BertTokenizer",
        "config": {
            "name": "bert_tokenizer", "trainable": True,
            "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "int32"},
                      "registered_name": None},
            "config_file": TOKENIZER_FILE, "vocabulary": None, "sequence_length": None,
            "lowercase": bool(do_lower_case), "strip_accents": bool(do_lower_case), "split": True,
            "suffix_indicator": "##", "oov_token": "[UNK]", "special_tokens": None,
            "special_tokens_in_strings": False,
        },
        "registered_name": "keras_hub>BertTokenizer",
    }


def _weights_h5(tensors, config):
    import h5py
    buffer = io.BytesIO()
    with h5py.File(buffer, "w") as h5:
        h5.create_group("vars").attrs["name"] = "bert_backbone"
        for group, name, variables in _weight_table(config.num_hidden_layers):
            entry = h5.create_group(group).create_group("vars")
            entry.attrs["name"] = name
            for index, (ours, kind) in enumerate(variables):
                entry[str(index)] = _to_keras_hub(np.asarray(tensors[ours]), kind,
                                                  config.num_attention_heads)
    return buffer.getvalue()


def write_preset(tensors, config, vocab_tokens, do_lower_case, path):
    """Writes a keras-hub preset of the encoder in `tensors` {our path: array}
    (every `backbone_paths` entry; other entries, e.g. pretraining heads, are not
    part of a BertBackbone and are left out)."""
    needed = backbone_paths(config.num_hidden_layers)
    missing = [p for p in needed if p not in tensors]
    if missing:
        raise PresetError(f"a keras-hub BertBackbone needs every encoder weight; missing: {missing}")
    import keras
    os.makedirs(os.path.join(path, os.path.dirname(VOCAB_FILE)), exist_ok=True)
    atomic_write_text(os.path.join(path, VOCAB_FILE), "".join(f"{t}\n" for t in vocab_tokens))
    atomic_write_text(os.path.join(path, TOKENIZER_FILE),
                      json.dumps(_tokenizer_config(do_lower_case), indent=4))
    atomic_write_bytes(os.path.join(path, WEIGHTS_FILE), _weights_h5(tensors, config))
    atomic_write_text(os.path.join(path, CONFIG_FILE), json.dumps(_backbone_config(config), indent=4))
    metadata = {
        "keras_version": keras.version(), "keras_hub_version": LAYOUT_VERSION,
        "parameter_count": int(sum(np.asarray(tensors[p]).size for p in needed)),
        "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S"),
        "tasks": ["MaskedLM", "TextClassifier", "TextEmbedder"],
        _OUR_CONFIG_KEY: {k: getattr(config, k) for k in _OUR_FIELDS},
    }
    atomic_write_text(os.path.join(path, METADATA_FILE), json.dumps(metadata, indent=4))

