"""Which `BertConfig` a run uses: an explicit file, a preset, or the one that
travels with the checkpoint (our `bert_config.json`, Hugging Face `config.json`)."""

import os

from modeling.config import BertConfig, ConfigError


def _config_beside(init_checkpoint):
    directory = init_checkpoint if os.path.isdir(init_checkpoint) else os.path.dirname(init_checkpoint)
    for name in ("bert_config.json", "config.json"):
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate):
            return candidate
    return None


def resolve_bert_config(bert_config_file=None, preset=None, init_checkpoint=None):
    if bert_config_file and preset:
        raise ConfigError("give --bert_config_file or --preset, not both")
    if bert_config_file:
        return BertConfig.from_json_file(bert_config_file)
    if preset:
        return BertConfig.from_preset(preset)
    found = _config_beside(init_checkpoint) if init_checkpoint else None
    if found is None:
        raise ConfigError("no model config: pass --bert_config_file or --preset (no bert_config.json "
                          f"or config.json found beside --init_checkpoint={init_checkpoint!r})")
    return BertConfig.from_json_file(found)
