"""XLNet (Yang et al. 2019) in the family registry."""

from families.family import Family
from families.xlnet.checkpoints.formats import FORMATS, saved_weights
from families.xlnet.config import XLNetConfig
from families.xlnet.encoder import XLNetEncoder
from families.xlnet.text_side import XLNetText

FAMILY = Family(name="xlnet", config_type=XLNetConfig, encoder_type=XLNetEncoder, text_side=XLNetText,
                config_file="xlnet_config.json", tiny_preset="xlnet_tiny",
                checkpoint_formats=FORMATS, saved_weights=saved_weights,
                command_lines=("build_spm_vocab.py", "create_xlnet_pretraining_data.py"))
