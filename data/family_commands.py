"""The data command lines at the repository root that every family answers
(`build_vocab.py`, `create_pretraining_data.py`, `pack_pretraining_data.py`):
`--model=<family>` picks the family's part, `<its home>/commands/<command>.py`,
as `run_pretraining.py --model` picks its part of pretraining. Without
`--model` the first registered family that has one (BERT) runs, so
google-research's command lines run unchanged; each family keeps its own
flags (XLNet's are the original `data_utils.py`'s), defined only when it is
the one picked. The part is found without importing the family's record,
which would load TensorFlow into a vocabulary builder that needs none.

A part has `define_flags()`, `REQUIRED` (the flags that must be given),
`main(argv)` and, optionally, `parse_flags` (absl's `flags_parser`: the
writers leave Beam's options to `--runner`).
"""

import importlib
import importlib.util
import os
import sys

from absl import app, flags

from contracts import registry


def part_module(family, command):
    """The module of `family`'s part of `command`."""
    return f"{registry.home(family)}.commands.{command}"


def families_with(command):
    """The registered families that have a part of `command`, in registration order."""
    return [name for name in registry.names() if importlib.util.find_spec(part_module(name, command))]


def command_name():
    """The script the user ran (`build_vocab.py`, or an alias such as `build_spm_vocab.py`), for messages."""
    return os.path.basename(sys.argv[0])


def _family_from_flags(command):
    offered = families_with(command)
    flags.DEFINE_enum("model", offered[0], offered, "The model family whose data this writes (its flags "
                      "follow with --helpshort --model=<family>).")
    flags.FLAGS.register_key_flag_for_module(sys.argv[0], flags.FLAGS["model"])
    try:
        flags.FLAGS(sys.argv, known_only=True)
    except flags.Error as e:
        sys.exit(f"FATAL Flags parsing error: {e}\nPass --helpshort or --helpfull to see help on flags.")
    return flags.FLAGS.model


def run(command, family=None):
    """Runs `command` (the root script's name, without `.py`) for `family`, or
    for the family `--model` names."""
    family = family or _family_from_flags(command)
    part = importlib.import_module(part_module(family, command))
    before = set(flags.FLAGS)
    part.define_flags()
    for name in set(flags.FLAGS) - before:  # the script's own flags, as --helpshort lists them
        flags.FLAGS.register_key_flag_for_module(sys.argv[0], flags.FLAGS[name])
    flags.mark_flags_as_required(part.REQUIRED)
    app.run(part.main, flags_parser=getattr(part, "parse_flags", app.parse_flags_with_usage))
