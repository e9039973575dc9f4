"""BERT (Devlin et al. 2018) in the family registry."""

from families.bert.checkpoints.formats import FORMATS
from families.bert.config import BertConfig
from families.bert.encoder import BertEncoder
from families.bert.pretrainer import BertPretrainer
from families.bert.text_side import WordPieceText
from families.family import Family


def masked_lm_model(config):
    """What the TF Hub encoder holds: the masked-LM pretrainer (the left-to-right
    LM for a causal config), for its `mlm` signature."""
    return BertPretrainer(BertEncoder(config), objective="ltr" if config.causal_attention else "mlm")


FAMILY = Family(name="bert", config_type=BertConfig, encoder_type=BertEncoder, text_side=WordPieceText,
                config_file="bert_config.json", tiny_preset="bert_tiny_uncased", hub_model=masked_lm_model,
                checkpoint_formats=FORMATS,
                command_lines=("build_vocab.py", "create_pretraining_data.py", "pack_pretraining_data.py",
                               "data/build_vocab.py", "data/create_pretraining_data.py",
                               "data/pack_pretraining_data.py"))
