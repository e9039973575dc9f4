"""OpenAI GPT (Radford et al. 2018) in the family registry."""

from families.family import Family
from families.gpt.checkpoints import convert
from families.gpt.checkpoints.formats import FORMATS, foreign_config
from families.gpt.config import GPTConfig
from families.gpt.encoder import GPTEncoder
from families.gpt.text_side import GPTText

FAMILY = Family(
    name="gpt", title="OpenAI GPT", config_type=GPTConfig, encoder_type=GPTEncoder, text_side=GPTText,
    tiny_preset="gpt_tiny", checkpoint_formats=FORMATS, foreign_config=foreign_config,
    convert=convert.convert, output_formats=convert.OUTPUT_FORMATS,
    pretraining="families.gpt.pretraining.run", comparison="families.gpt.comparison",
    command_lines=("build_bpe_vocab.py", "create_gpt_pretraining_data.py"),
    # SQuAD's Python windows read WordPiece's `vocab.ids` and its SavedModel
    # BERT's in-graph word splitting; GPT's BPE does not plug into them yet.
    tasks=("classification", "tagging", "multiple_choice", "feature_extraction"))
