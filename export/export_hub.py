"""Writes the TF Hub BERT pair from any checkpoint we read.

  python -m export.export_hub --init_checkpoint=uncased_L-12_H-768_A-12/bert_model.ckpt \
      --bert_config_file=uncased_L-12_H-768_A-12/bert_config.json \
      --vocab_file=uncased_L-12_H-768_A-12/vocab.txt --do_lower_case=true \
      --export_dir=/tmp/bert_hub

gives `/tmp/bert_hub/preprocessor` and `/tmp/bert_hub/encoder` (formats in
`export/hub_preprocessor.py` and `export/hub_encoder.py`). The checkpoint may
be an original TF1 one, a Hugging Face directory, a Model Garden checkpoint,
our weights or a fine-tuning output_dir; `--bert_config_file` and
`--vocab_file` default to the ones beside it.
"""

import os

from absl import app, flags, logging

from checkpoints.companion_files import resolve_bert_config, resolve_vocab_file
from export.hub_encoder import build_pretrainer, save_hub_encoder
from export.hub_preprocessor import DEFAULT_SEQ_LENGTH, save_preprocessor
from tasks.flag_groups import define_export_flag, define_model_flags, define_text_flags

PREPROCESSOR_DIR = "preprocessor"
ENCODER_DIR = "encoder"


def export_hub(export_dir, init_checkpoint, bert_config_file=None, vocab_file=None,
               do_lower_case=True, seq_length=DEFAULT_SEQ_LENGTH, preset=None):
    """Writes `<export_dir>/preprocessor` and `<export_dir>/encoder`; returns their paths."""
    config = resolve_bert_config(bert_config_file, preset, init_checkpoint)
    vocab_file = resolve_vocab_file(vocab_file, init_checkpoint)
    if seq_length > config.max_position_embeddings:
        raise ValueError(f"--seq_length {seq_length} exceeds the model's "
                         f"max_position_embeddings {config.max_position_embeddings}")
    pretrainer, _ = build_pretrainer(config, init_checkpoint)
    preprocessor_dir = os.path.join(export_dir, PREPROCESSOR_DIR)
    encoder_dir = os.path.join(export_dir, ENCODER_DIR)
    save_preprocessor(preprocessor_dir, vocab_file, do_lower_case, seq_length)
    save_hub_encoder(encoder_dir, pretrainer, vocab_file, do_lower_case)
    return preprocessor_dir, encoder_dir


def define_flags():
    define_model_flags()
    define_text_flags(max_seq_length=None)
    define_export_flag("Gets the preprocessor/ and encoder/ SavedModels.")
    flags.DEFINE_integer("seq_length", DEFAULT_SEQ_LENGTH,
                         "Default sequence length of the preprocessor.")
    flags.mark_flags_as_required(["init_checkpoint", "export_dir"])


def main(argv):
    del argv
    f = flags.FLAGS
    paths = export_hub(f.export_dir, f.init_checkpoint, f.bert_config_file, f.vocab_file,
                       f.do_lower_case, f.seq_length, f.preset)
    logging.info("wrote %s and %s", *paths)


if __name__ == "__main__":
    define_flags()
    app.run(main)
