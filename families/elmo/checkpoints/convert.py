"""An ELMo checkpoint (the original `lm_weights.hdf5`, or ours) written out as
the original layout or ours, with its `options.json`."""

import dataclasses
import os
import shutil

from absl import logging

from checkpoints.loader import check_family, detect_format, load_into
from checkpoints.ours import save_weights
from contracts import registry
from families.elmo.bilm import BiLM
from families.elmo.checkpoints import lm_weights
from families.elmo.checkpoints.formats import load_lm_weights
from families.elmo.config import N_CHARACTERS

OUTPUT_FORMATS = ("hdf5", "ours")
VOCAB_FILE = "vocab.txt"


def read_bilm(path, config):
    """(a built `BiLM` holding the checkpoint at `path`, `LoadReport`); every
    variable must be in the checkpoint."""
    bilm = BiLM(config, name="bilm")
    bilm.build()
    if lm_weights.is_lm_weights(path):
        return bilm, load_lm_weights(bilm, path)
    fmt = detect_format(path)
    check_family(path, fmt, registry.family("elmo"))
    return bilm, load_into(bilm, path, fmt=fmt)


def convert(init_checkpoint, output_dir, output_format, config, vocab_file=None, do_lower_case=False):
    """Writes ELMo's checkpoint at `init_checkpoint` as `output_format`
    ("hdf5": `lm_weights.hdf5`; "ours") with `options.json` and, if given,
    the LM vocabulary as `vocab.txt`; returns the `LoadReport` of the read.
    Words are not lower-cased: `do_lower_case` is not used. The hdf5 layout's
    options say `n_characters` 262, which the original reads at inference
    (its training options say 261)."""
    if output_format not in OUTPUT_FORMATS:
        raise ValueError(f"output format {output_format!r} is not one of {OUTPUT_FORMATS}")
    bilm, report = read_bilm(init_checkpoint, config)
    logging.info(report.summary())
    os.makedirs(output_dir, exist_ok=True)
    if output_format == "hdf5":
        lm_weights.write_datasets(lm_weights.datasets_of(bilm, set(report.loaded)),
                                  os.path.join(output_dir, lm_weights.WEIGHTS_FILE))
        if config.char_cnn is not None:
            config = config.replace(char_cnn=dataclasses.replace(config.char_cnn, n_characters=N_CHARACTERS))
        config.to_json_file(os.path.join(output_dir, config.config_file_name))
    else:
        save_weights(bilm, output_dir, set(report.loaded))
    if vocab_file:
        shutil.copyfile(vocab_file, os.path.join(output_dir, VOCAB_FILE))
    return report
