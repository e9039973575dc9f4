"""The config and vocabulary that travel with a checkpoint, so that
`--init_checkpoint=<dir>` alone is enough: a family's own config file beside
it (`bert_config.json`, `xlnet_config.json`: `Family.config_file`), the layouts
of other projects a family reads (a Hugging Face `config.json`, a keras-hub
preset: `Family.config_in`), or a `config.json` of a family's fields. The
vocabulary is the family's file beside it (`Family.vocabulary_in`).
"""

import dataclasses
import os

from data.text.families import text_side_for, text_side_type, vocab_file_name
from families import registry
from modeling.encoder_interface import family_of
from modeling.json_config import ConfigError
from utils.files import read_json_object

OTHER_CONFIG_FILE = "config.json"  # Hugging Face's, keras-hub's, or a config of a family's fields


def config_file_names():
    """Every config file name looked for beside a checkpoint, the families' first."""
    return tuple(f.config_file for f in registry.families()) + (OTHER_CONFIG_FILE,)


def family_of_values(values, source):
    """The family whose config has the most of the fields in `values` (a config
    file's JSON object); `source` names it in the error when none has any."""
    def shared(family):
        return len(set(values) & {f.name for f in dataclasses.fields(family.config_type)})
    best = max(registry.families(), key=shared)
    if not shared(best):
        raise ConfigError(f"{source}: not the config of any model family ({', '.join(registry.names())}): "
                          f"none has a field among {sorted(values)}")
    return best


def read_config_file(path):
    """The config in the file at `path`: of the family whose file name it has,
    else of the family its fields name."""
    values = read_json_object(path, ConfigError)
    family = (registry.family_with_config_file(os.path.basename(path))
              or family_of_values(values, path))
    return family.config_type.from_dict(values, source=path)


def checkpoint_dir(path):
    """The directory a checkpoint path (directory or TF checkpoint prefix) lives in."""
    return path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))


def config_file_beside(path):
    """A family's config file or a `config.json` next to the checkpoint at `path`, or None."""
    directory = checkpoint_dir(path)
    for name in config_file_names():
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
    if os.path.basename(found) == OTHER_CONFIG_FILE:
        for family in registry.families():
            config = family.config_in(directory)
            if config is not None:
                return config
    return read_config_file(found)


def vocab_beside(path, family):
    """The vocabulary file of `family` next to the checkpoint at `path`, or None."""
    return registry.family(family).vocabulary_in(checkpoint_dir(path))


def config_from_preset(preset):
    """The config of the family that has a preset named `preset`."""
    for family in registry.families():
        if preset in family.config_type.presets():
            return family.config_type.from_preset(preset)
    known = sorted(name for family in registry.families() for name in family.config_type.presets())
    raise ConfigError(f"unknown preset {preset!r}; known presets: {', '.join(known)}")


def resolve_encoder_config(bert_config_file=None, preset=None, init_checkpoint=None):
    """An explicit config file, else a preset, else the config beside the checkpoint."""
    if bert_config_file and preset:
        raise ConfigError("give --bert_config_file or --preset, not both")
    if bert_config_file:
        return read_config_file(bert_config_file)
    if preset:
        return config_from_preset(preset)
    config = config_beside(init_checkpoint) if init_checkpoint else None
    if config is None:
        names = config_file_names()
        raise ConfigError(
            "no model config: pass --bert_config_file ("
            + " or ".join(f"{f.title}'s {f.config_file}" for f in registry.families())
            + ") or --preset (no " + ", ".join(names[:-1]) + f" or {names[-1]} beside "
            f"--init_checkpoint={init_checkpoint!r})")
    return config


def resolve_vocab_file(vocab_file=None, init_checkpoint=None, family="bert", optional=False):
    """An explicit vocab file, else `family`'s vocabulary file beside the
    checkpoint; with `optional` (a model that runs without one: ELMo's
    character biLM), None when there is neither."""
    if vocab_file:
        if not os.path.isfile(vocab_file):
            raise FileNotFoundError(f"vocabulary file not found: {vocab_file!r}")
        return vocab_file
    found = vocab_beside(init_checkpoint, family) if init_checkpoint else None
    if found is None and optional:
        return None
    if found is None:
        raise FileNotFoundError(
            f"no vocabulary: pass {registry.family(family).config_type.vocab_file_flag} (no "
            f"{vocab_file_name(family)} beside --init_checkpoint={init_checkpoint!r})")
    return found


def resolve_model_files(vocab_file=None, bert_config_file=None, preset=None, init_checkpoint=None):
    """(vocab file, encoder config) of a task model (fine-tuning, features, TF
    Hub) as `resolve_encoder_config` and `resolve_vocab_file` find them (the
    vocabulary of the config's family), checked to fit each other
    (`check_vocab_fits`). The config is `for_fine_tuning`: a pretraining
    output_dir's settings (XLNet's `bi_data`, memory) do not reach the task."""
    config = resolve_encoder_config(bert_config_file, preset, init_checkpoint).for_fine_tuning()
    family = family_of(config)
    vocab_file = resolve_vocab_file(vocab_file, init_checkpoint, family,
                                    optional=not text_side_type(family).needs_vocabulary(config))
    if vocab_file is not None:
        check_vocab_fits(config, config_source(bert_config_file, preset, init_checkpoint), vocab_file)
    return vocab_file, config


def config_source(bert_config_file=None, preset=None, init_checkpoint=None):
    """Where `resolve_encoder_config` takes the config from, for messages."""
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
    fails only at the first training step. A damaged file read beside it (GPT's
    merges) is named alone, with its line."""
    family = family_of(config)
    try:
        size = text_side_for(family, vocab_file, do_lower_case=False).special_ids.vocab_size
    except (ValueError, RuntimeError, OSError) as e:
        if getattr(e, "path", None) in text_side_type(family).vocabulary_files(vocab_file)[1:]:
            # A damaged file beside it (GPT's merges): `vocab_file` read as the family's.
            raise ConfigError(f"{e} (a file of the {family} vocabulary {vocab_file})") from e
        readers = ", ".join(f"a {f.name} model reads {f.text_side.model_file_name} "
                            f"({f.config_type.vocab_file_flag})" for f in registry.families())
        raise ConfigError(
            f"{vocab_file} is not a {family} vocabulary ({vocab_file_name(family)}), which "
            f"{source} (a {family} config) needs: {e}. {readers[0].upper()}{readers[1:]}") from e
    if config.vocab_size is not None and size > config.vocab_size:
        field = config.vocab_size_field
        raise ConfigError(
            f"{vocab_file} has {size} tokens but {source} has {field}={config.vocab_size}: "
            f"token ids up to {size - 1} would not fit the word embeddings; use the vocabulary "
            f"the model was trained with ({config.vocab_file_flag}), or a config with "
            f"{field}={size}")
