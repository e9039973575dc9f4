"""Fine-tunes BERT for multiple choice: SWAG, or any JSON-lines set of N endings.

`data_dir` holds `train`, `val` (or `dev`) and `test` files, `.csv` in SWAG's
layout or `.jsonl` (see data/swag_reader.py). `--do_eval` writes
`eval_results.txt` (accuracy on dev); `--do_predict` writes
`test_predictions.jsonl` (per-example probabilities and predicted index).

    python run_swag.py --data_dir=swag --init_checkpoint=uncased_L-12_H-768_A-12/bert_model.ckpt \\
        --vocab_file=uncased_L-12_H-768_A-12/vocab.txt \\
        --bert_config_file=uncased_L-12_H-768_A-12/bert_config.json \\
        --do_train --do_eval --max_seq_length=128 --train_batch_size=16 \\
        --learning_rate=2e-5 --num_train_epochs=3 --output_dir=/tmp/swag

`--bert_config_file` and `--vocab_file` may be left out when they lie beside
`--init_checkpoint` (original release directories, Hugging Face directories).
"""

import os

from absl import app, flags, logging

from checkpoints.companion_files import resolve_model_files
from export.export_meta import ExportMeta, write_export_meta
from export.export_model import export_model
from tasks.fine_tuning import EVAL_RESULTS, FineTuningSettings, train_epochs
from tasks.multiple_choice import MultipleChoiceConfig, MultipleChoiceTask
from tasks.run_options import RunOptions, define_flags
from tasks.trainer import Trainer, write_results

define_flags()
flags.DEFINE_string("data_dir", None, "Directory of the train/val/test files.")
flags.DEFINE_string("vocab_file", None, "WordPiece vocab (default: vocab.txt beside "
                    "--init_checkpoint).")
flags.DEFINE_bool("do_lower_case", True, "Lower-case the input (uncased models).")
flags.DEFINE_integer("max_seq_length", 128, "Tokens per choice after WordPiece, longer pairs "
                     "truncated.")
flags.DEFINE_bool("do_train", False, "Fine-tune on the train split.")
flags.DEFINE_bool("do_eval", False, "Accuracy on the dev split, to eval_results.txt.")
flags.DEFINE_bool("do_predict", False, "Predictions on the test split, to "
                  "test_predictions.jsonl.")
flags.DEFINE_integer("train_batch_size", 16, "Examples (of N choices each) per update.")
flags.DEFINE_integer("eval_batch_size", 8, "Examples per evaluation batch.")
flags.DEFINE_integer("predict_batch_size", 8, "Examples per prediction batch.")
flags.DEFINE_float("learning_rate", 2e-5, "Peak AdamW learning rate (paper, SWAG: 2e-5).")
flags.DEFINE_float("num_train_epochs", 3.0, "Passes over the train split (paper, SWAG: 3).")
flags.DEFINE_float("warmup_proportion", 0.1, "Share of the steps with linear warmup.")
flags.DEFINE_bool("skip_bad_rows", False, "Skip malformed rows with a count instead of "
                  "stopping at the first.")

flags.DEFINE_string("export_dir", None, "Write the serving SavedModel (context and endings in, "
                    "probabilities out) here after training.")

FLAGS = flags.FLAGS

PREDICTIONS = "test_predictions.jsonl"


def main(_):
    if not (FLAGS.do_train or FLAGS.do_eval or FLAGS.do_predict):
        raise app.UsageError("at least one of --do_train, --do_eval, --do_predict is required")
    if not FLAGS.data_dir:
        raise app.UsageError("--data_dir is required")
    options = RunOptions.from_flags()
    vocab_file, bert_config = resolve_model_files(FLAGS.vocab_file, FLAGS.bert_config_file,
                                                  FLAGS.preset, FLAGS.init_checkpoint)
    task = MultipleChoiceTask(MultipleChoiceConfig(
        data_dir=FLAGS.data_dir,
        vocab_file=vocab_file,
        bert_config=bert_config,
        do_lower_case=FLAGS.do_lower_case, max_seq_length=FLAGS.max_seq_length,
        init_checkpoint=FLAGS.init_checkpoint, skip_bad_rows=FLAGS.skip_bad_rows,
        seed=FLAGS.seed))
    trainer = Trainer(task, options)

    if FLAGS.do_train:
        train_epochs(trainer, task, FineTuningSettings(
            train_batch_size=FLAGS.train_batch_size, learning_rate=FLAGS.learning_rate,
            num_train_epochs=FLAGS.num_train_epochs, warmup_proportion=FLAGS.warmup_proportion,
            optimizer=FLAGS.optimizer))
    if FLAGS.do_eval:
        results = trainer.evaluate(FLAGS.eval_batch_size, split="dev")
        results = {"eval_accuracy": results["accuracy"], "eval_loss": results["loss"],
                   "global_step": results["global_step"]}
        logging.info("dev: %s", results)
        write_results(os.path.join(options.output_dir, EVAL_RESULTS), results)
    if FLAGS.do_predict:
        predictions = trainer.predict(FLAGS.predict_batch_size, split="test")
        task.write_predictions("test", predictions,
                               os.path.join(options.output_dir, PREDICTIONS))
    if trainer.is_chief and (FLAGS.do_train or FLAGS.export_dir):
        config = task.config
        meta = ExportMeta("multiple_choice", config.bert_config, config.vocab_file,
                          config.do_lower_case, config.max_seq_length)
        write_export_meta(options.output_dir, meta)
        if FLAGS.export_dir:
            logging.info("Wrote the serving SavedModel to %s",
                         export_model(meta, FLAGS.export_dir, options.output_dir))


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    app.run(main)
