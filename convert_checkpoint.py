"""Converts a BERT checkpoint between the original TF1, Hugging Face, keras-hub and our
layouts, and an XLNet checkpoint between the original TF1, Hugging Face, Model Garden
and our layouts.

  python convert_checkpoint.py --init_checkpoint=uncased_L-12_H-768_A-12/bert_model.ckpt \
      --bert_config_file=uncased_L-12_H-768_A-12/bert_config.json --output_format=hf \
      --output_dir=/tmp/bert_hf
  python convert_checkpoint.py --init_checkpoint=xlnet_cased_L-12_H-768_A-12/xlnet_model.ckpt \
      --output_format=hf --output_dir=/tmp/xlnet_hf

Input is detected (TF1, Hugging Face dir, TF Model Garden, keras-hub preset,
ours, a training output_dir). MLM/NSP heads are carried when present; only
variables found in the input are written, so nothing randomly initialised leaks
into the output. `--output_format=keras_hub` writes a preset directory that
`keras_hub.models.BertBackbone.from_preset` and `BertTextClassifier.from_preset`
load: the encoder (a BertBackbone has no pretraining heads) plus the tokenizer
(the vocabulary, `--do_lower_case`). A config with XLNet's fields (the
`xlnet_config.json` beside the checkpoint, or `--bert_config_file`) makes it an
XLNet conversion, heads kept (LM bias, sequence summary and logit layer, token
tagging layer, SQuAD head; `model_garden` holds the backbone only); its `spiece.model` is
given with `--spiece_model_file` (or `--vocab_file`).
"""

import os
import shutil

from absl import app, flags, logging

from families.bert.checkpoints import keras_hub_preset
from checkpoints.companion_files import resolve_encoder_config, resolve_vocab_file
from families.bert.checkpoints.export_formats import to_hf, to_tf1
from families.bert.checkpoints.huggingface import write_hf_dir
from checkpoints.loader import load_into
from checkpoints.ours import save_weights
from checkpoints.tf_checkpoint import write_name_based
from families.xlnet.checkpoints.convert import read_parts, write_parts
from data.text.vocab import Vocab
from families.bert.encoder import BertEncoder
from families.bert.pretrainer import BertPretrainer
from families.xlnet.config import XLNetConfig
from tasks.flag_groups import define_model_flags, define_text_flags, vocab_file_from_flags

FLAGS = flags.FLAGS


def define_flags():
    """Defined only when run as a script, so that importing `convert` defines no flags."""
    define_model_flags()
    define_text_flags(max_seq_length=None, vocab_help="Copied into the output directory when "
                      "given (keras_hub: default the one beside the input).")
    flags.DEFINE_enum("output_format", "hf", ["tf1", "hf", "ours", "keras_hub", "model_garden"],
                      "Layout to write (keras_hub: BERT only; model_garden: XLNet only).")
    flags.DEFINE_string("output_dir", None, "Directory to write.")
    flags.mark_flags_as_required(["init_checkpoint", "output_dir"])


def convert(init_checkpoint, output_dir, output_format, bert_config_file=None, vocab_file=None,
            do_lower_case=True, preset=None):
    config = resolve_encoder_config(bert_config_file, preset, init_checkpoint)
    if isinstance(config, XLNetConfig):
        return convert_xlnet(init_checkpoint, output_dir, output_format, config, vocab_file)
    if output_format == "model_garden":
        raise ValueError("--output_format=model_garden is written for XLNet only")
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


def convert_xlnet(init_checkpoint, output_dir, output_format, config, vocab_file=None):
    if output_format == "keras_hub":
        raise ValueError("--output_format=keras_hub is written for BERT only")
    parts, report = read_parts(init_checkpoint, config)
    logging.info(report.summary())
    write_parts(parts, set(report.loaded), output_format, output_dir)
    if vocab_file:
        shutil.copyfile(vocab_file, os.path.join(output_dir, "spiece.model"))
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


def main(argv):
    del argv
    report = convert(FLAGS.init_checkpoint, FLAGS.output_dir, FLAGS.output_format,
                     FLAGS.bert_config_file, vocab_file_from_flags(), FLAGS.do_lower_case, FLAGS.preset)
    print(f"wrote {len(report.loaded)} variables as {FLAGS.output_format} to {FLAGS.output_dir}")


if __name__ == "__main__":
    define_flags()
    app.run(main)
