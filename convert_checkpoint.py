"""Converts a BERT checkpoint between the original TF1, Hugging Face and our layouts.

  python convert_checkpoint.py --init_checkpoint=uncased_L-12_H-768_A-12/bert_model.ckpt \
      --bert_config_file=uncased_L-12_H-768_A-12/bert_config.json --output_format=hf \
      --output_dir=/tmp/bert_hf

Input is detected (TF1, Hugging Face dir, TF Model Garden, ours, a training
output_dir). MLM/NSP heads are carried when present; only variables found in
the input are written, so nothing randomly initialised leaks into the output.
"""

import os
import shutil

from absl import app, flags, logging

from checkpoints.companion_files import resolve_bert_config
from checkpoints.export_formats import to_hf, to_tf1
from checkpoints.huggingface import write_hf_dir
from checkpoints.loader import load_into
from checkpoints.ours import save_weights
from checkpoints.tf_checkpoint import write_name_based
from modeling import BertEncoder
from modeling.pretrainer import BertPretrainer

flags.DEFINE_string("init_checkpoint", None, "Checkpoint to convert (any supported layout).")
flags.DEFINE_string("bert_config_file", None, "bert_config.json; default: the one beside the input.")
flags.DEFINE_string("vocab_file", None, "Copied into the output directory when given.")
flags.DEFINE_enum("output_format", "hf", ["tf1", "hf", "ours"], "Layout to write.")
flags.DEFINE_string("output_dir", None, "Directory to write.")
flags.mark_flags_as_required(["init_checkpoint", "output_dir"])
FLAGS = flags.FLAGS


def convert(init_checkpoint, output_dir, output_format, bert_config_file=None, vocab_file=None):
    config = resolve_bert_config(bert_config_file, init_checkpoint=init_checkpoint)
    model = BertPretrainer(BertEncoder(config))
    report = load_into(model, init_checkpoint)
    logging.info(report.summary())
    loaded = set(report.loaded)
    if output_format == "tf1":
        write_name_based(to_tf1(model, loaded), os.path.join(output_dir, "bert_model.ckpt"))
        config.to_json_file(os.path.join(output_dir, "bert_config.json"))
    elif output_format == "hf":
        write_hf_dir(to_hf(model, loaded), config, output_dir)
    else:
        save_weights(model, output_dir, loaded)
    if vocab_file:
        shutil.copyfile(vocab_file, os.path.join(output_dir, "vocab.txt"))
    return report


def main(argv):
    del argv
    report = convert(FLAGS.init_checkpoint, FLAGS.output_dir, FLAGS.output_format,
                     FLAGS.bert_config_file, FLAGS.vocab_file)
    print(f"wrote {len(report.loaded)} variables as {FLAGS.output_format} to {FLAGS.output_dir}")


if __name__ == "__main__":
    app.run(main)
