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
given with `--spiece_model_file` (or `--vocab_file`). An ELMo model (`options.json` beside)
converts to `hdf5` or `ours`; a family's own flags (ELMo's `--token_embedding_file`, the
original's token inputs) are defined from its record.
"""

from absl import app, flags

from checkpoints.companion_files import resolve_encoder_config
from families import registry
from tasks.flag_groups import define_model_flags, define_text_flags, vocab_file_from_flags
from tasks.input_errors import reporting_input_errors

FLAGS = flags.FLAGS


def define_flags():
    """Defined only when run as a script, so that importing `convert` defines no flags."""
    define_model_flags()
    define_text_flags(max_seq_length=None, vocab_help="Copied into the output directory when "
                      "given (keras_hub: default the one beside the input).")
    flags.DEFINE_enum("output_format", "hf", output_formats(), "Layout to write: " + "; ".join(
        f"{family.title}: {', '.join(family.output_formats)}" for family in registry.families()) + ".")
    flags.DEFINE_string("output_dir", None, "Directory to write.")
    for name, (family, help_text) in family_flags().items():
        flags.DEFINE_string(name, None, f"{family.title} only. {help_text}")
    flags.mark_flags_as_required(["init_checkpoint", "output_dir"])


def output_formats():
    """Every layout some registered family writes, in registry order."""
    return list(dict.fromkeys(fmt for family in registry.families() for fmt in family.output_formats))


def family_flags():
    """{flag name: (the family it is of, its help)} of the families' own flags."""
    return {name: (family, help_text) for family in registry.families() for name, help_text in family.convert_flags}


def convert(init_checkpoint, output_dir, output_format, bert_config_file=None, vocab_file=None,
            do_lower_case=True, preset=None, **family_options):
    """Writes the checkpoint at `init_checkpoint` as `output_format` with the
    converter of its config's family; returns the `LoadReport` of the read.
    `family_options` are the family's own flags (`family_flags`) given."""
    config = resolve_encoder_config(bert_config_file, preset, init_checkpoint)
    family = registry.family_of(config)
    if output_format not in family.output_formats:
        writers = [f.title for f in registry.families() if output_format in f.output_formats]
        raise ValueError(f"--output_format={output_format} is written for {' and '.join(writers)} only, "
                         f"not {family.title}")
    for name in family_options:
        if name not in dict(family.convert_flags):
            raise ValueError(f"--{name} is for {family_flags()[name][0].title} checkpoints, and the config "
                             f"is {family.title}'s")
    return family.convert(init_checkpoint, output_dir, output_format, config, vocab_file, do_lower_case,
                          **family_options)


@reporting_input_errors
def main(argv):
    del argv
    family_options = {name: FLAGS[name].value for name in family_flags() if FLAGS[name].value}
    report = convert(FLAGS.init_checkpoint, FLAGS.output_dir, FLAGS.output_format,
                     FLAGS.bert_config_file, vocab_file_from_flags(), FLAGS.do_lower_case, FLAGS.preset,
                     **family_options)
    print(f"wrote {len(report.loaded)} variables as {FLAGS.output_format} to {FLAGS.output_dir}")


if __name__ == "__main__":
    define_flags()
    app.run(main)
