"""The config and vocabulary that travel with a checkpoint, so that
`--init_checkpoint=<dir>` alone is enough: an original release directory
(`bert_config.json`, `vocab.txt` beside `bert_model.ckpt`; XLNet's
`xlnet_config.json` beside `xlnet_model.ckpt`, or the `config.json` its
pretraining writes), a Hugging Face directory (`config.json`, `vocab.txt`), a
keras-hub preset (`config.json`, `assets/tokenizer/vocabulary.txt`) or one of our
weight directories. A config with XLNet's fields (`n_layer d_model n_head ...`)
is an `XLNetConfig`, any other a `BertConfig`.
"""

import os

from families.bert.checkpoints import keras_hub_preset
from families.xlnet.checkpoints import huggingface as xlnet_huggingface
from families.bert.checkpoints.huggingface import read_hf_config
from data.text.families import text_side_for, vocab_file_name
from families.bert.config import BertConfig, ConfigError
from modeling.encoder_interface import FAMILIES, family_of
from families.xlnet.config import XLNET_PRESETS, XLNetConfig
from utils.files import read_json_object

CONFIG_FILES = ("bert_config.json", "xlnet_config.json", "config.json")


def read_config_file(path):
    """`XLNetConfig` for a file with XLNet's fields (the original `xlnet_config.json`),
    else `BertConfig`."""
    values = read_json_object(path, ConfigError)
    if "n_layer" in values and "model_type" not in values:
        return XLNetConfig.from_dict(values, source=path)
    return BertConfig.from_json_file(path)


def checkpoint_dir(path):
    """The directory a checkpoint path (directory or TF checkpoint prefix) lives in."""
    return path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))


def config_file_beside(path):
    """`bert_config.json`, `xlnet_config.json`, a keras-hub preset's or a Hugging
    Face `config.json` next to the checkpoint at `path`, or None."""
    directory = checkpoint_dir(path)
    for name in CONFIG_FILES:
        if os.path.isfile(os.path.join(directory, name)):
            return os.path.join(directory, name)
    return None


def config_beside(path):
    """The config from the file next to the checkpoint at `path`; None when
    there is none."""
    found = config_file_beside(path)
    if found is None:
        return None
    directory = os.path.dirname(found)
    if keras_hub_preset.is_preset(directory):
        return keras_hub_preset.read_config(directory)
    if xlnet_huggingface.is_xlnet_hf_dir(directory):
        return xlnet_huggingface.read_config(directory)
    if os.path.basename(found) == "config.json" and "n_layer" not in read_json_object(found, ConfigError):
        return read_hf_config(directory)
    return read_config_file(found)


def vocab_beside(path, family="bert"):
    """The vocabulary file of `family` (`vocab.txt`, XLNet's `spiece.model`; a
    keras-hub preset's vocabulary) next to the checkpoint at `path`, or None."""
    directory = checkpoint_dir(path)
    name = (keras_hub_preset.VOCAB_FILE if keras_hub_preset.is_preset(directory)
            else vocab_file_name(family))
    candidate = os.path.join(directory, name)
    return candidate if os.path.isfile(candidate) else None


def resolve_bert_config(bert_config_file=None, preset=None, init_checkpoint=None):
    """An explicit config file, else a preset, else the config beside the checkpoint."""
    if bert_config_file and preset:
        raise ConfigError("give --bert_config_file or --preset, not both")
    if bert_config_file:
        return read_config_file(bert_config_file)
    if preset:
        return XLNetConfig.from_preset(preset) if preset in XLNET_PRESETS else BertConfig.from_preset(preset)
    config = config_beside(init_checkpoint) if init_checkpoint else None
    if config is None:
        raise ConfigError(
            "no model config: pass --bert_config_file (BERT's bert_config.json or XLNet's "
            "xlnet_config.json) or --preset (no " + ", ".join(CONFIG_FILES[:-1]) + " or "
            f"{CONFIG_FILES[-1]} beside --init_checkpoint={init_checkpoint!r})")
    return config


def resolve_vocab_file(vocab_file=None, init_checkpoint=None, family="bert"):
    """An explicit vocab file, else `family`'s vocabulary file beside the checkpoint."""
    if vocab_file:
        if not os.path.isfile(vocab_file):
            raise FileNotFoundError(f"vocabulary file not found: {vocab_file!r}")
        return vocab_file
    found = vocab_beside(init_checkpoint, family) if init_checkpoint else None
    if found is None:
        raise FileNotFoundError(
            f"no vocabulary: pass {FAMILIES[family].vocab_file_flag} (no "
            f"{vocab_file_name(family)} beside --init_checkpoint={init_checkpoint!r})")
    return found


def resolve_model_files(vocab_file=None, bert_config_file=None, preset=None, init_checkpoint=None):
    """(vocab file, encoder config) of a task model (fine-tuning, features, TF
    Hub) as `resolve_bert_config` and `resolve_vocab_file` find them (the
    vocabulary of the config's family), checked to fit each other
    (`check_vocab_fits`). The config is `for_fine_tuning`: a pretraining
    output_dir's settings (XLNet's `bi_data`, memory) do not reach the task."""
    config = resolve_bert_config(bert_config_file, preset, init_checkpoint).for_fine_tuning()
    vocab_file = resolve_vocab_file(vocab_file, init_checkpoint, family_of(config))
    check_vocab_fits(config, config_source(bert_config_file, preset, init_checkpoint), vocab_file)
    return vocab_file, config


def config_source(bert_config_file=None, preset=None, init_checkpoint=None):
    """Where `resolve_bert_config` takes the config from, for messages."""
    if bert_config_file:
        return bert_config_file
    if preset:
        return f"--preset={preset}"
    return config_file_beside(init_checkpoint) if init_checkpoint else "the config"


def check_vocab_fits(config, source, vocab_file):
    """Raises `ConfigError` naming both files when the vocabulary is not of the
    config's family (a WordPiece `vocab.txt` for an XLNet, a `spiece.model` for
    a BERT) or has more tokens than the config's `vocab_size` (XLNet's
    `n_token`): its ids would index past the word embeddings, which otherwise
    fails only at the first training step."""
    family = family_of(config)
    try:
        size = text_side_for(family, vocab_file, do_lower_case=False).special_ids.vocab_size
    except (ValueError, RuntimeError, OSError) as e:
        raise ConfigError(
            f"{vocab_file} is not a {family} vocabulary ({vocab_file_name(family)}), which "
            f"{source} (a {family} config) needs: {e}. A BERT model reads a WordPiece vocab.txt "
            f"(--vocab_file), an XLNet model a SentencePiece spiece.model "
            f"(--spiece_model_file)") from e
    if size > config.vocab_size:
        field = config.vocab_size_field
        raise ConfigError(
            f"{vocab_file} has {size} tokens but {source} has {field}={config.vocab_size}: "
            f"token ids up to {size - 1} would not fit the word embeddings; use the vocabulary "
            f"the model was trained with ({config.vocab_file_flag}), or a config with "
            f"{field}={size}")
