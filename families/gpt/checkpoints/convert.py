"""A GPT checkpoint in any layout (the original release, Hugging Face, ours,
a trainer's) written out in another, the multiple-choice head kept where the
layout has a place for it."""

import os
import shutil

from absl import logging

from checkpoints.loader import check_family, detect_format, load_tensors
from checkpoints.ours import save_weights
from families import registry
from families.gpt.checkpoints import huggingface, release
from families.gpt.checkpoints.formats import FORMATS, read_by_path
from families.gpt.checkpoints.names import from_ours
from families.gpt.double_heads import GPTDoubleHeads
from families.gpt.encoder import GPTEncoder
from families.gpt.text_side import GPTText

OUTPUT_FORMATS = ("release", "hf", "ours")


def gpt_format(path):
    """The name of the layout of the GPT checkpoint at `path`."""
    for fmt in FORMATS:
        if fmt.detect(path, None):
            return fmt.name
    fmt = detect_format(path)
    check_family(path, fmt, registry.family("gpt"))
    return fmt


def read_model(path, config):
    """(our model holding the checkpoint at `path`, `LoadReport`): the encoder,
    within `GPTDoubleHeads` when the checkpoint has a multiple-choice head."""
    fmt = gpt_format(path)
    by_path, locate = read_by_path(path, fmt, config.n_layer)
    encoder = GPTEncoder(config)
    model = GPTDoubleHeads(encoder) if any(p.startswith("choice_scorer/") for p in by_path) else encoder
    return model, load_tensors(model, by_path, locate, path, fmt)


def write_model(model, loaded, output_format, output_dir):
    """Writes the `loaded` variables of `model` as `output_format`, with the config."""
    config = model.config
    if output_format == "ours":
        save_weights(model, output_dir, loaded)
        return
    tensors = from_ours({v.path: v.numpy() for v in model.weights if v.path in loaded}, config.n_layer)
    if output_format == "hf":
        huggingface.write_dir(tensors, config, output_dir)
        return
    if output_format != "release":
        raise ValueError(f"output format {output_format!r} is not one of {OUTPUT_FORMATS}")
    left_out = sorted(name for name in tensors if name.startswith("model/clf/"))
    if left_out:
        logging.warning("the release layout has no place for the classifier; left out: %s", ", ".join(left_out))
    release.write_dir(tensors, output_dir)
    config.to_json_file(os.path.join(output_dir, config.config_file_name))


def convert(init_checkpoint, output_dir, output_format, config, vocab_file=None, do_lower_case=True):
    """Writes GPT's checkpoint at `init_checkpoint` as `output_format`; returns
    the `LoadReport` of the read. GPT's BPE lower-cases as the original does
    whatever `do_lower_case` says; `vocab_file` (the BPE encoder) is copied beside with its
    merges, under the names the text side reads."""
    model, report = read_model(init_checkpoint, config)
    logging.info(report.summary())
    write_model(model, set(report.loaded), output_format, output_dir)
    if vocab_file:
        for source, name in zip(GPTText.vocabulary_files(vocab_file), GPTText.vocabulary_file_names()):
            shutil.copyfile(source, os.path.join(output_dir, name))
    return report
