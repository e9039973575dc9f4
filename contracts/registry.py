"""The one registry of model families: each name maps to the module of its
record (`<home>/family.py`, holding `FAMILY`), imported when first asked for,
so shared code names no family module and a new family is one line here.
It is the one way to a family: by name (`family`), by config (`family_of`), by
the config file beside a checkpoint (`family_with_config_file`), and the
answers shared code asks of a name most (its config from JSON fields, its
text side and vocabulary file).

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


def home(name):
    """The package of the family `name`'s home ("families.bert"), without importing
    its record: where `main.py` finds its half of the main job."""
    if name not in FAMILY_MODULES:
        raise UnknownFamilyError(f"unknown model family {name!r}; registered: {', '.join(names())}")
    return FAMILY_MODULES[name].rsplit(".", 1)[0]


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


def config_from_dict(name, values, source):
    """The encoder config of the family `name` from its JSON fields; errors name `source`."""
    try:
        config_type = family(name).config_type
    except UnknownFamilyError as e:
        raise ValueError(f"{source}: {e}") from None
    return config_type.from_dict(values, source=source)


def text_side_type(name):
    """The `TextSide` class of the family `name`."""
    try:
        return family(name).text_side
    except UnknownFamilyError as e:
        raise ValueError(f"no text side for encoder family {name!r}: {e}") from None


def text_side_for(name, model_file, do_lower_case):
    """The `TextSide` of the family `name` over its vocabulary file `model_file`."""
    return text_side_type(name).from_file(model_file, do_lower_case)


def vocab_file_name(name):
    """The name of the family's vocabulary file (`vocab.txt`, `spiece.model`), as it
    lies beside a checkpoint or export_meta.json."""
    return text_side_type(name).model_file_name
