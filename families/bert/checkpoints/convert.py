"""BERT's checkpoints written out in another layout: the original TF1 release,
Hugging Face, a keras-hub preset, ours."""

import os
import shutil

from absl import logging

from checkpoints.companion_files import resolve_vocab_file
from checkpoints.loader import load_into
from checkpoints.ours import save_weights
from checkpoints.tf_checkpoint import write_name_based
from data.text.vocab import Vocab
from families.bert.checkpoints import keras_hub_preset
from families.bert.checkpoints.export_formats import to_hf, to_tf1
from families.bert.checkpoints.huggingface import write_hf_dir
from families.bert.encoder import BertEncoder
from families.bert.pretrainer import BertPretrainer

OUTPUT_FORMATS = ("tf1", "hf", "keras_hub", "ours")


def convert(init_checkpoint, output_dir, output_format, config, vocab_file=None, do_lower_case=True):
    """Writes BERT's checkpoint at `init_checkpoint` (pretraining heads kept)
    as `output_format`; returns the `LoadReport` of the read."""
    # The left-to-right ablation pretrains without a next-sentence head.
    model = BertPretrainer(BertEncoder(config), "ltr" if config.causal_attention else "mlm_nsp")
    report = load_into(model, init_checkpoint)
    logging.info(report.summary())
    loaded = set(report.loaded)
    if output_format == "tf1":
        write_name_based(to_tf1(model, loaded), os.path.join(output_dir, "bert_model.ckpt"))
        config.to_json_file(os.path.join(output_dir, config.config_file_name))
    elif output_format == "hf":
        write_hf_dir(to_hf(model, loaded), config, output_dir)
    elif output_format == "keras_hub":
        write_keras_hub(model, loaded, config, resolve_vocab_file(vocab_file, init_checkpoint),
                        do_lower_case, output_dir)
        return report
    else:
        save_weights(model, output_dir, loaded)
    if vocab_file:
        shutil.copyfile(vocab_file, os.path.join(output_dir, "vocab.txt"))
    return report


def write_keras_hub(model, loaded, config, vocab_file, do_lower_case, output_dir):
    """The encoder's weights (all of them must have been loaded) as a keras-hub preset."""
    tensors = {v.path: v.numpy() for v in model.weights if v.path in loaded}
    left_out = sorted(set(tensors) - set(keras_hub_preset.backbone_paths(config.num_hidden_layers)))
    if left_out:
        logging.warning("not part of a keras-hub BertBackbone, left out: %s", ", ".join(left_out))
    if config.hidden_act == "gelu":
        logging.warning("keras-hub's BertBackbone computes the tanh approximation of GELU; this "
                        "model uses the exact one (MiniLM's sequence_output moves by up to 4e-3)")
    if config.hidden_dropout_prob != config.attention_probs_dropout_prob:
        logging.warning("keras-hub has one dropout rate: %s (hidden_dropout_prob) is used for "
                        "attention too", config.hidden_dropout_prob)
    keras_hub_preset.write_preset(tensors, config, Vocab.from_file(vocab_file).tokens,
                                  do_lower_case, output_dir)
