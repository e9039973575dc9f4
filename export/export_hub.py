"""Writes the TF Hub pair from any checkpoint we read, BERT or XLNet.

  python -m export.export_hub --init_checkpoint=uncased_L-12_H-768_A-12/bert_model.ckpt \\
      --bert_config_file=uncased_L-12_H-768_A-12/bert_config.json \\
      --vocab_file=uncased_L-12_H-768_A-12/vocab.txt --do_lower_case=true \\
      --export_dir=/tmp/bert_hub
  python -m export.export_hub --init_checkpoint=xlnet_cased_L-12_H-768_A-12/xlnet_model.ckpt \\
      --export_dir=/tmp/xlnet_hub

give `<export_dir>/preprocessor` and `<export_dir>/encoder` (formats in
`export/hub_preprocessor.py` and `export/hub_encoder.py`), and for ELMo also
`<export_dir>/elmo`, the published TF Hub ELMo's layout
(`families/elmo/hub_module.py`). The checkpoint may
be an original TF1 one, a Hugging Face directory, a Model Garden checkpoint,
our weights or a fine-tuning output_dir. The config and vocabulary are found
as the runners find them (`checkpoints.companion_files.resolve_model_files`):
`--bert_config_file` (or XLNet's `xlnet_config.json`), `--preset`, else the
config beside the checkpoint picks the family; `--vocab_file` /
`--spiece_model_file`, else the family's vocabulary file beside it.
`--do_lower_case` left out is the family's default (BERT true, XLNet false).
`--export_dir` must be new, empty or hold only an earlier export of the pair
(its folders are replaced); any other folder is refused (`export/export_dir.py`).
"""

import os

from absl import app, flags, logging

from checkpoints.companion_files import resolve_model_files
from data.text.families import text_side_for, text_side_type
from export.export_dir import check_pair_dir
from export.hub_encoder import build_hub_model, save_hub_encoder
from export.hub_preprocessor import DEFAULT_SEQ_LENGTH, save_preprocessor
from families import registry
from modeling.encoder_interface import exceeds_positions, family_of
from tasks.flag_groups import (define_export_flag, define_model_flags, define_text_flags,
                               do_lower_case_from_flags, model_files_from_flags)
from tasks.input_errors import reporting_input_errors

PREPROCESSOR_DIR = "preprocessor"
ENCODER_DIR = "encoder"


def export_hub(export_dir, init_checkpoint, bert_config_file=None, vocab_file=None,
               do_lower_case=None, seq_length=DEFAULT_SEQ_LENGTH, preset=None):
    """`write_hub_pair` with the config and vocabulary found as the runners find
    them; `do_lower_case=None` is the family's default. Returns the two paths."""
    vocab_file, config = resolve_model_files(vocab_file, bert_config_file, preset, init_checkpoint)
    if do_lower_case is None:
        do_lower_case = text_side_type(family_of(config)).do_lower_case_default
    return write_hub_pair(export_dir, config, vocab_file, do_lower_case, init_checkpoint,
                          seq_length)


def write_hub_pair(export_dir, config, vocab_file, do_lower_case, init_checkpoint,
                   seq_length=DEFAULT_SEQ_LENGTH):
    """Writes `<export_dir>/preprocessor` and `<export_dir>/encoder` of `config`'s
    family with `init_checkpoint`'s weights, and the family's own module where
    its record has one (ELMo's, `<export_dir>/elmo`); returns the pair's paths.
    `export_dir` holding anything else is refused (`check_pair_dir`) first."""
    if exceeds_positions(config, seq_length):
        raise ValueError(f"--seq_length {seq_length} exceeds the model's "
                         f"max_position_embeddings {config.max_position_embeddings}")
    family = registry.family_of(config)
    names = [PREPROCESSOR_DIR, ENCODER_DIR] + ([family.name] if family.hub_module else [])
    check_pair_dir(export_dir, names, keep=[init_checkpoint])
    model, _ = build_hub_model(config, init_checkpoint)
    preprocessor_dir = os.path.join(export_dir, PREPROCESSOR_DIR)
    encoder_dir = os.path.join(export_dir, ENCODER_DIR)
    save_preprocessor(preprocessor_dir, text_side_for(family_of(config), vocab_file, do_lower_case),
                      seq_length)
    save_hub_encoder(encoder_dir, model, vocab_file, do_lower_case)
    if family.hub_module:
        logging.info("wrote %s", family.hub_module(os.path.join(export_dir, family.name),
                                                   getattr(model, "encoder", model)))
    return preprocessor_dir, encoder_dir


def define_flags():
    define_model_flags()
    define_text_flags(max_seq_length=None)
    define_export_flag("Gets the preprocessor/ and encoder/ SavedModels (and a family's own "
                       "module, ELMo's elmo/): a new or empty folder, or one holding an earlier "
                       "export of them (replaced); any other folder is refused.")
    flags.DEFINE_integer("seq_length", DEFAULT_SEQ_LENGTH,
                         "Default sequence length of the preprocessor.")
    flags.mark_flags_as_required(["init_checkpoint", "export_dir"])


@reporting_input_errors
def main(argv):
    del argv
    f = flags.FLAGS
    vocab_file, config = model_files_from_flags()
    paths = write_hub_pair(f.export_dir, config, vocab_file, do_lower_case_from_flags(config),
                           f.init_checkpoint, f.seq_length)
    logging.info("wrote %s and %s", *paths)


if __name__ == "__main__":
    define_flags()
    app.run(main)
