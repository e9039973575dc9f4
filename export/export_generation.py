"""Writes the text-generation SavedModel of a left-to-right language model from
any checkpoint its family reads (format: `export/serving_generation.py`):

  python -m export.export_generation --init_checkpoint=openai-gpt --export_dir=/models/gpt/1

The config and vocabulary are found as the runners find them
(`--bert_config_file` / `--preset` / the files beside the checkpoint;
`--vocab_file`). Families whose record has no `language_model` (BERT, XLNet)
are a usage error. `--export_dir` is a new or empty folder, an earlier export
(replaced) or a TF Serving base path with numbered versions (the export is
the next one); any other folder is refused (`export/export_dir.py`).
"""

from absl import app, flags, logging

from checkpoints.pretrained import load_pretrained
from data.text.families import text_side_for
from export.export_dir import saved_model_dir
from export.serving_generation import save_generation
from families import registry
from tasks.flag_groups import (EXPORT_DIR_HELP, define_export_flag, define_model_flags,
                               define_text_flags, do_lower_case_from_flags, model_files_from_flags)
from tasks.input_errors import reporting_input_errors


class NoLanguageModelError(ValueError):
    """A family that does not generate text left to right."""


def write_generation(export_dir, config, vocab_file, do_lower_case, init_checkpoint):
    """Writes the generation SavedModel of `config`'s family with
    `init_checkpoint`'s weights to `export_dir` (or its next version,
    `saved_model_dir`); returns its path."""
    family = registry.family_of(config)
    if family.language_model is None:
        raise NoLanguageModelError(f"the {family.name} family has no left-to-right language model "
                                   "to generate text with")
    export_dir = saved_model_dir(export_dir, keep=[init_checkpoint])
    model = family.language_model(config)
    load_pretrained(model, model.encoder, init_checkpoint)
    text_side = text_side_for(family.name, vocab_file, do_lower_case)
    return save_generation(export_dir, model, text_side, config.max_position_embeddings)


def define_flags():
    define_model_flags()
    define_text_flags(max_seq_length=None)
    define_export_flag(f"Gets the generation SavedModel. {EXPORT_DIR_HELP}")
    flags.mark_flags_as_required(["init_checkpoint", "export_dir"])


@reporting_input_errors
def main(argv):
    del argv
    f = flags.FLAGS
    vocab_file, config = model_files_from_flags()
    try:
        path = write_generation(f.export_dir, config, vocab_file, do_lower_case_from_flags(config),
                                f.init_checkpoint)
    except NoLanguageModelError as e:
        raise app.UsageError(str(e)) from None
    logging.info("wrote the generation SavedModel to %s", path)


if __name__ == "__main__":
    define_flags()
    app.run(main)
