"""ELMo (Peters et al. 2018) in the family registry."""

from families.elmo.checkpoints import convert
from families.elmo.checkpoints.formats import FORMATS
from families.elmo.config import ELMoConfig
from families.elmo.encoder import ELMoEncoder
from families.elmo.text_side import ELMoText
from families.family import Family

FAMILY = Family(
    name="elmo", title="ELMo", config_type=ELMoConfig, encoder_type=ELMoEncoder, text_side=ELMoText,
    tiny_preset="elmo_tiny", checkpoint_formats=FORMATS,
    convert=convert.convert, output_formats=convert.OUTPUT_FORMATS,
    tasks=("classification", "tagging", "multiple_choice", "feature_extraction"))
