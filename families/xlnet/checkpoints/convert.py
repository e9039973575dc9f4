"""An XLNet checkpoint in any layout read into `XLNetParts` with the heads it
holds, and written out in another: the original TF1 layout, Hugging Face, the
Model Garden's `XLNetBase` object checkpoint, or ours."""

import os
import shutil

from absl import logging

from families.xlnet.checkpoints import huggingface as xlnet_huggingface
from checkpoints.loader import CheckpointMismatchError, check_family, detect_format, load_tensors
from checkpoints.ours import save_weights
from checkpoints.tf_checkpoint import write_name_based, write_object_based
from families import registry
from families.xlnet.checkpoints.formats import tf1_tensors
from families.xlnet.checkpoints.model_garden_names import tf1_to_model_garden
from families.xlnet.checkpoints.parts import build_parts, parts_to_hf, parts_to_tf1
from families.xlnet.checkpoints.tf1_names import LOGIT_SCOPE, TAGGING_SCOPE, xlnet_tf1_name

TF1_CHECKPOINT = "xlnet_model.ckpt"
OUTPUT_FORMATS = ("tf1", "hf", "model_garden", "ours")


def read_parts(path, config):
    """(`XLNetParts` with the heads the checkpoint at `path` holds, `LoadReport`).
    A trainer's checkpoint (a run's output_dir or its `ckpt-N`) is read for its
    model's weights, as BERT's are."""
    fmt = detect_format(path)
    check_family(path, fmt, registry.family("xlnet"))
    tensors = tf1_tensors(path, fmt, config.untie_r)
    if not tensors:
        raise CheckpointMismatchError(f"{path}: a {fmt} checkpoint with no XLNet variable in it")
    parts = build_parts(config, tensors)
    return parts, load_tensors(parts, tensors, xlnet_tf1_name, path, fmt)


def _hf_architecture(tf1):
    """The `transformers` class that holds the heads in `tf1` (and its config fields)."""
    if "start_logits/dense/kernel" in tf1:
        return "XLNetForQuestionAnswering", {}
    if f"{LOGIT_SCOPE}/bias" in tf1:
        return "XLNetForSequenceClassification", {"num_labels": int(tf1[f"{LOGIT_SCOPE}/bias"].shape[0])}
    if f"{TAGGING_SCOPE}/bias" in tf1:
        return "XLNetForTokenClassification", {"num_labels": int(tf1[f"{TAGGING_SCOPE}/bias"].shape[0])}
    return "XLNetLMHeadModel", {}


def write_parts(parts, loaded, output_format, output_dir):
    """Writes the `loaded` variables of `parts` as `output_format`, with the config."""
    tf1 = parts_to_tf1(parts, loaded)
    if output_format == "hf":
        architecture, extra = _hf_architecture(tf1)
        xlnet_huggingface.write_dir(parts_to_hf(parts, loaded), parts.config, output_dir, architecture, **extra)
        return
    if output_format == "tf1":
        write_name_based(tf1, os.path.join(output_dir, TF1_CHECKPOINT))
    elif output_format == "model_garden":
        keys, left_out = tf1_to_model_garden(tf1)
        if left_out:
            logging.warning("not part of a Model Garden XLNetBase, left out: %s", ", ".join(left_out))
        write_object_based(keys, os.path.join(output_dir, "ckpt"))
    elif output_format == "ours":
        save_weights(parts, output_dir, loaded)
        return
    else:
        raise ValueError(f"output format {output_format!r} is not one of {OUTPUT_FORMATS}")
    parts.config.to_json_file(os.path.join(output_dir, parts.config.config_file_name))


def convert(init_checkpoint, output_dir, output_format, config, vocab_file=None, do_lower_case=False):
    """Writes XLNet's checkpoint at `init_checkpoint` (heads kept) as
    `output_format`; returns the `LoadReport` of the read. Its SentencePiece
    model keeps its own casing: `do_lower_case` is not used."""
    parts, report = read_parts(init_checkpoint, config)
    logging.info(report.summary())
    write_parts(parts, set(report.loaded), output_format, output_dir)
    if vocab_file:
        shutil.copyfile(vocab_file, os.path.join(output_dir, "spiece.model"))
    return report
