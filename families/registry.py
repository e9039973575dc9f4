"""The one registry of model families: each name maps to the module of its
record (`<home>/family.py`, holding `FAMILY`), imported when first asked for,
so shared code names no family module and a new family is one line here.

Example:
>>> family("bert").config_type.from_preset("bert_tiny_uncased")
>>> family_of(XLNetConfig.from_preset("xlnet_tiny")).name
'xlnet'
"""

import importlib

FAMILY_MODULES = {
    "bert": "families.bert.family",
    "xlnet": "families.xlnet.family",
    "gpt": "families.gpt.family",
    "elmo": "families.elmo.family",
}


class UnknownFamilyError(ValueError):
    """A family name, config or file no registered family claims."""


def names():
    """Registered family names, in registration order."""
    return tuple(FAMILY_MODULES)


def family(name):
    """The `Family` record registered as `name`."""
    if name not in FAMILY_MODULES:
        raise UnknownFamilyError(f"unknown model family {name!r}; registered: {', '.join(names())}")
    return importlib.import_module(FAMILY_MODULES[name]).FAMILY


def families():
    """Every registered `Family`."""
    return tuple(family(name) for name in names())


def family_of(config):
    """The `Family` whose config type `config` is."""
    for candidate in families():
        if type(config) is candidate.config_type:
            return candidate
    raise UnknownFamilyError(f"no model family has a {type(config).__name__}; registered config types: "
                             + ", ".join(f.config_type.__name__ for f in families()))


def family_with_config_file(file_name):
    """The `Family` whose checkpoints carry a config file named `file_name`, or None."""
    return next((f for f in families() if f.config_file == file_name), None)
