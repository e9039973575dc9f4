"""BERT (Devlin et al. 2018) in the family registry."""

import json
import os

from contracts.family import Family
from families.bert.checkpoints import convert, keras_hub_preset
from families.bert.checkpoints.formats import FORMATS
from families.bert.checkpoints.huggingface import read_hf_config
from families.bert.config import BertConfig
from families.bert.encoder import BertEncoder
from families.bert.pretrainer import BertPretrainer
from families.bert.text_side import WordPieceText


def masked_lm_model(config):
    """What the TF Hub encoder holds: the masked-LM pretrainer (the left-to-right
    LM for a causal config), for its `mlm` signature."""
    return BertPretrainer(BertEncoder(config), objective="ltr" if config.causal_attention else "mlm")



def foreign_config(directory):
    """A keras-hub preset's or a Hugging Face BERT's config in `directory`, or None."""
    if keras_hub_preset.is_preset(directory):
        return keras_hub_preset.read_config(directory)
    config_file = os.path.join(directory, "config.json")
    if os.path.isfile(config_file):
        with open(config_file, encoding="utf-8") as f:
            values = json.load(f)
        if isinstance(values, dict) and values.get("model_type") == "bert":
            return read_hf_config(directory)
    return None


def foreign_vocabulary(directory):
    """A keras-hub preset's vocabulary file, or None."""
    if keras_hub_preset.is_preset(directory):
        return os.path.join(directory, keras_hub_preset.VOCAB_FILE)
    return None


FAMILY = Family(
    name="bert", title="BERT", config_type=BertConfig, encoder_type=BertEncoder, text_side=WordPieceText,
    tiny_preset="bert_tiny_uncased", hub_model=masked_lm_model,
    checkpoint_formats=FORMATS, foreign_config=foreign_config, foreign_vocabulary=foreign_vocabulary,
    convert=convert.convert, output_formats=convert.OUTPUT_FORMATS,
    layer_combinations=True, pretraining="families.bert.pretraining.run",
    comparison="families.bert.comparison")
