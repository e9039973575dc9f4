"""An ELMo checkpoint (the original `lm_weights.hdf5`, or ours) written out as
the original layout or ours, with its `options.json`."""

import dataclasses
import os
import shutil

from absl import logging

from checkpoints.loader import CheckpointMismatchError, check_family, detect_format, load_into
from checkpoints.ours import save_weights
from contracts import registry
from families.elmo.bilm import BiLM
from families.elmo.checkpoints import lm_weights
from families.elmo.checkpoints.formats import load_lm_weights
from families.elmo.checkpoints.token_inputs import token_inputs_config
from families.elmo.config import N_CHARACTERS
from families.elmo.vocabulary import Vocabulary

OUTPUT_FORMATS = ("hdf5", "ours")
VOCAB_FILE = "vocab.txt"


def read_bilm(path, config, embedding_file=None):
    """(a built `BiLM` holding the checkpoint at `path`, `LoadReport`); every
    variable must be in the checkpoint. `embedding_file`: a token-embedding
    model's table, the original's token embedding file (with lm_weights.hdf5)."""
    bilm = BiLM(config, name="bilm")
    bilm.build()
    if lm_weights.is_lm_weights(path):
        return bilm, load_lm_weights(bilm, path, embedding_file=embedding_file)
    if embedding_file:
        raise CheckpointMismatchError(f"{path}: not the original's lm_weights.hdf5, which the token embedding "
                                      f"file {embedding_file} goes with")
    fmt = detect_format(path)
    check_family(path, fmt, registry.family("elmo"))
    return bilm, load_into(bilm, path, fmt=fmt)


def convert(init_checkpoint, output_dir, output_format, config, vocab_file=None, do_lower_case=False,
            token_embedding_file=None):
    """Writes ELMo's checkpoint at `init_checkpoint` as `output_format`
    ("hdf5": `lm_weights.hdf5`; "ours") with `options.json` and, if given,
    the LM vocabulary as `vocab.txt`; returns the `LoadReport` of the read.
    Words are not lower-cased: `do_lower_case` is not used. The hdf5 layout's
    options say `n_characters` 262, which the original reads at inference
    (its training options say 261).

    `token_embedding_file` reads the original's token inputs: that table
    (`dump_token_embeddings`'s output) with the LSTMs of `init_checkpoint`
    (lm_weights.hdf5), as the token-embedding variant (`token_inputs`); its
    vocabulary (`vocab_file`, else the one beside `init_checkpoint`) must have
    a line per row of the table, and goes with it."""
    if output_format not in OUTPUT_FORMATS:
        raise ValueError(f"output format {output_format!r} is not one of {OUTPUT_FORMATS}")
    if token_embedding_file:
        config = token_inputs_config(config, token_embedding_file)
        vocab_file = _token_vocabulary(vocab_file, init_checkpoint, token_embedding_file, config.n_tokens_vocab)
    bilm, report = read_bilm(init_checkpoint, config, token_embedding_file)
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


def _token_vocabulary(vocab_file, init_checkpoint, embedding_file, rows):
    """The vocabulary of a token embedding table of `rows` rows: `vocab_file`,
    else the one beside `init_checkpoint`; one word a row, as the original's
    `dump_token_embeddings` writes them."""
    beside = os.path.dirname(os.path.abspath(lm_weights.weights_file(init_checkpoint)))
    vocab_file = vocab_file or os.path.join(beside, VOCAB_FILE)
    if not os.path.isfile(vocab_file):
        raise FileNotFoundError(f"no vocabulary for the token embedding file {embedding_file}: pass "
                                f"--vocab_file (no {vocab_file})")
    words = len(Vocabulary.from_file(vocab_file))
    if words != rows:
        raise lm_weights.LMWeightsError(f"{embedding_file} has {rows} rows, {vocab_file} {words} words: "
                                        "not the vocabulary the table was written for")
    return vocab_file
