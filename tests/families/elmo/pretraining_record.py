"""ELMo's family record as `run_pretraining.py --model=elmo` needs it, for
tests on a branch whose registry has no ELMo record yet: `command(...)` runs
run_pretraining.py in a subprocess with this record registered unless the
registry already holds one (which must then name
`families.elmo.pretraining.run` as its `pretraining`)."""

import sys

from families import registry
from families.elmo.config import ELMoConfig
from families.elmo.encoder import ELMoEncoder
from families.family import Family

FAMILY = Family(name="elmo", title="ELMo", config_type=ELMoConfig, encoder_type=ELMoEncoder, text_side=None,
                tiny_preset="elmo_tiny", pretraining="families.elmo.pretraining.run")

_RUN = ("import runpy, sys; from tests.families.elmo import pretraining_record; pretraining_record.register(); "
        "sys.argv[0] = 'run_pretraining.py'; runpy.run_path('run_pretraining.py', run_name='__main__')")


def register():
    registry.FAMILY_MODULES.setdefault("elmo", __name__)


def command(*flags):
    """run_pretraining.py --model=elmo with `flags`, from the repository root."""
    return [sys.executable, "-c", _RUN, "--model=elmo", *flags]
