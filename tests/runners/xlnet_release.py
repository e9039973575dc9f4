"""A release-like XLNet directory for the runner tests, as the original ships one:
`xlnet_model.ckpt` (the TF1 layout, random backbone weights), `xlnet_config.json`
and a `spiece.model` learned here; and the `xlnet_config.json` a pretraining
output_dir records (`run_pretraining.py --model=xlnet --bi_data --mem_len=...`)."""

import json
import os
import shutil

from checkpoints.tf_checkpoint import write_name_based
from families.xlnet.checkpoints.parts import parts_to_tf1
from families.xlnet.config import XLNetConfig
from tests.families.xlnet.checkpoints.random_weights import random_parts
from tests.families.xlnet.spiece_model import learn_spiece_model

# xlnet_tiny with room for the learned model's pieces (at most 120).
CONFIG = XLNetConfig.from_preset("xlnet_tiny").replace(n_token=128)
# CONFIG with every pretraining-only run option away from its fine-tuning value.
PRETRAINING_CONFIG = CONFIG.replace(bi_data=True, mem_len=24, reuse_len=16, same_length=True,
                                    clamp_len=8)


def write_xlnet_release(directory):
    """Writes the three files into `directory` (a pathlib.Path); returns the
    checkpoint prefix."""
    directory.mkdir(parents=True, exist_ok=True)
    prefix = str(directory / "xlnet_model.ckpt")
    write_name_based(parts_to_tf1(random_parts(CONFIG, heads={})), prefix)
    (directory / "xlnet_config.json").write_text(json.dumps(CONFIG.to_dict()))
    learn_spiece_model(directory)
    return prefix


def copy_as_pretrained(release_prefix, directory):
    """Copies the release of `release_prefix` into `directory` (a pathlib.Path),
    its `xlnet_config.json` replaced by `PRETRAINING_CONFIG`'s; returns the
    copy's checkpoint prefix."""
    shutil.copytree(os.path.dirname(release_prefix), directory)
    PRETRAINING_CONFIG.to_json_file(str(directory / "xlnet_config.json"))
    return str(directory / "xlnet_model.ckpt")
