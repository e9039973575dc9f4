"""Fine-tunes any family (BERT, XLNet, OpenAI GPT, ELMo: the config picks it) for multiple
choice: SWAG, or any JSON-lines set of N endings. The task is `tasks/multiple_choice/`.

`data_dir` holds `train`, `val` (or `dev`) and `test` files, `.csv` in SWAG's
layout or `.jsonl` (see tasks/multiple_choice/swag_reader.py). `--do_eval` writes
`eval_results.txt` (accuracy on dev); `--do_predict` writes
`test_predictions.jsonl` (per-example probabilities and predicted index).

    python run_swag.py --data_dir=swag --init_checkpoint=uncased_L-12_H-768_A-12/bert_model.ckpt \\
        --vocab_file=uncased_L-12_H-768_A-12/vocab.txt \\
        --bert_config_file=uncased_L-12_H-768_A-12/bert_config.json \\
        --do_train --do_eval --max_seq_length=128 --train_batch_size=16 \\
        --learning_rate=2e-5 --num_train_epochs=3 --output_dir=/tmp/swag

`--bert_config_file` and `--vocab_file` may be left out when they lie beside
`--init_checkpoint` (original release directories, Hugging Face directories).
XLNet as in run_classifier.py: the config picks the family, `--spiece_model_file`
(or `spiece.model` beside the checkpoint) is the vocabulary, and
`--do_lower_case` defaults to false:

    python run_swag.py --data_dir=swag \\
        --init_checkpoint=xlnet_cased_L-12_H-768_A-12/xlnet_model.ckpt \\
        --spiece_model_file=xlnet_cased_L-12_H-768_A-12/spiece.model --do_train --do_eval \\
        --learning_rate=2e-5 --num_train_epochs=3 --output_dir=/tmp/swag_xlnet
"""

from absl import app, flags

from export.export_model import fine_tune_and_export
from tasks.multiple_choice.task import MultipleChoiceConfig, MultipleChoiceTask
from training.flag_groups import (check_fine_tuning_flags, define_fine_tuning_flags,
                                  define_model_flags, define_text_flags, do_lower_case_from_flags,
                                  feature_head_from_flags, model_files_from_flags,
                                  settings_from_flags)
from training.input_errors import reporting_input_errors
from training.run_options import RunOptions, define_flags

define_flags()
define_model_flags()
define_text_flags(128, "Tokens per choice after WordPiece (XLNet: SentencePiece), longer pairs "
                  "truncated.")
define_fine_tuning_flags(
    unit="Examples (of N choices each)", train_batch_size=16, learning_rate=2e-5,
    data_dir="Directory of the train/val/test files.", skip_bad_rows=True,
    eval_help="Accuracy on the dev split, to eval_results.txt.",
    predict_help="Predictions on the test split, to test_predictions.jsonl.",
    export_help="the serving SavedModel (context and endings in, probabilities out).")

FLAGS = flags.FLAGS


@reporting_input_errors
def main(_):
    check_fine_tuning_flags()
    options = RunOptions.from_flags()
    vocab_file, encoder_config = model_files_from_flags("multiple_choice")
    task = MultipleChoiceTask(MultipleChoiceConfig(
        data_dir=FLAGS.data_dir,
        vocab_file=vocab_file,
        encoder_config=encoder_config,
        do_lower_case=do_lower_case_from_flags(encoder_config), max_seq_length=FLAGS.max_seq_length,
        init_checkpoint=FLAGS.init_checkpoint, skip_bad_rows=FLAGS.skip_bad_rows,
        trim_padding=options.distribution_strategy != "tpu" and not options.jit_compile,
        fine_tune_encoder=FLAGS.fine_tune_encoder, **feature_head_from_flags(encoder_config),
        seed=FLAGS.seed))
    fine_tune_and_export(task, options, settings_from_flags(), FLAGS.export_dir,
                         FLAGS.export_precision)


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    app.run(main)
