"""Fine-tunes BERT for extractive question answering on SQuAD v1.1 or v2.0.

The original command lines run unchanged:

    python run_squad.py --vocab_file=uncased_L-12_H-768_A-12/vocab.txt \\
        --bert_config_file=uncased_L-12_H-768_A-12/bert_config.json \\
        --init_checkpoint=uncased_L-12_H-768_A-12/bert_model.ckpt \\
        --do_train --train_file=train-v1.1.json --do_predict --predict_file=dev-v1.1.json \\
        --train_batch_size=12 --learning_rate=3e-5 --num_train_epochs=2.0 \\
        --max_seq_length=384 --doc_stride=128 --output_dir=/tmp/squad_base/

Add `--version_2_with_negative` (and `--null_score_diff_threshold`) for
SQuAD 2.0. `--bert_config_file` and `--vocab_file` may be left out when they
lie beside `--init_checkpoint`. `--do_predict` writes `predictions.json`,
`nbest_predictions.json` and, for v2.0, `null_odds.json`; when the predict
file has answers (or with `--do_eval`) the official EM/F1 (v2.0: also
HasAns/NoAns and the best null threshold) go to `eval_results.json`.
One epoch is one pass over the training windows (several per long context).
"""

import json
import os

from absl import app, flags, logging

from checkpoints.companion_files import resolve_model_files
from export.export_meta import SQUAD_OPTIONS, ExportMeta, write_export_meta
from export.export_model import export_model
from tasks.fine_tuning import FineTuningSettings, train_epochs
from tasks.question_answering import QuestionAnsweringConfig, QuestionAnsweringTask
from tasks.run_options import RunOptions, define_flags
from tasks.question_answering_answers import write_predictions
from tasks.trainer import Trainer
from utils.files import atomic_write_text

define_flags()
# Original google-research/bert flags.
flags.DEFINE_string("train_file", None, "SQuAD json for training, e.g. train-v1.1.json.")
flags.DEFINE_string("predict_file", None, "SQuAD json to predict, e.g. dev-v1.1.json.")
flags.DEFINE_string("vocab_file", None, "WordPiece vocab (default: vocab.txt beside "
                    "--init_checkpoint).")
flags.DEFINE_bool("do_lower_case", True, "Lower-case the input (uncased models).")
flags.DEFINE_integer("max_seq_length", 384, "Tokens per window after WordPiece.")
flags.DEFINE_integer("doc_stride", 128, "Context pieces between the starts of two windows.")
flags.DEFINE_integer("max_query_length", 64, "Question pieces kept; longer questions are cut.")
flags.DEFINE_bool("do_train", False, "Fine-tune on --train_file.")
flags.DEFINE_bool("do_predict", False, "Predict answers for --predict_file.")
flags.DEFINE_integer("train_batch_size", 32, "Windows per update.")
flags.DEFINE_integer("predict_batch_size", 8, "Windows per prediction batch.")
flags.DEFINE_float("learning_rate", 5e-5, "Peak AdamW learning rate.")
flags.DEFINE_float("num_train_epochs", 3.0, "Passes over the training windows.")
flags.DEFINE_float("warmup_proportion", 0.1, "Share of the steps with linear warmup.")
flags.DEFINE_integer("n_best_size", 20, "Candidates kept per question in nbest_predictions.json.")
flags.DEFINE_integer("max_answer_length", 30, "Longest answer, in word pieces.")
flags.DEFINE_bool("version_2_with_negative", False, "SQuAD 2.0: questions may have no answer.")
flags.DEFINE_float("null_score_diff_threshold", 0.0, "SQuAD 2.0: answer \"\" when the null "
                   "score exceeds the best non-null score by more than this.")
# Additions.
flags.DEFINE_bool("do_eval", False, "Score the predictions (official EM/F1) into "
                  "eval_results.json; automatic when --predict_file has answers.")

flags.DEFINE_string("export_dir", None, "Write the serving SavedModel (question and context in, "
                    "answer out) here after training.")

FLAGS = flags.FLAGS


def write_export(config, output_dir, export_dir):
    """export_meta.json for `python -m export.export_model`, and the SavedModel when asked."""
    meta = ExportMeta("squad", config.bert_config, config.vocab_file, config.do_lower_case,
                      config.max_seq_length, doc_stride=config.doc_stride,
                      squad={name: getattr(config, name) for name in SQUAD_OPTIONS})
    write_export_meta(output_dir, meta)
    if export_dir:
        logging.info("Wrote the serving SavedModel to %s", export_model(meta, export_dir, output_dir))

EVAL_RESULTS = "eval_results.json"


def main(_):
    if not (FLAGS.do_train or FLAGS.do_predict or FLAGS.do_eval):
        raise app.UsageError("at least one of --do_train, --do_predict, --do_eval is required")
    if FLAGS.do_train and not FLAGS.train_file:
        raise app.UsageError("--do_train needs --train_file")
    if (FLAGS.do_predict or FLAGS.do_eval) and not FLAGS.predict_file:
        raise app.UsageError("--do_predict / --do_eval need --predict_file")
    options = RunOptions.from_flags()
    vocab_file, bert_config = resolve_model_files(FLAGS.vocab_file, FLAGS.bert_config_file,
                                                  FLAGS.preset, FLAGS.init_checkpoint)
    task = QuestionAnsweringTask(QuestionAnsweringConfig(
        vocab_file=vocab_file,
        bert_config=bert_config,
        train_file=FLAGS.train_file, predict_file=FLAGS.predict_file,
        do_lower_case=FLAGS.do_lower_case, max_seq_length=FLAGS.max_seq_length,
        doc_stride=FLAGS.doc_stride, max_query_length=FLAGS.max_query_length,
        version_2_with_negative=FLAGS.version_2_with_negative, n_best_size=FLAGS.n_best_size,
        max_answer_length=FLAGS.max_answer_length,
        null_score_diff_threshold=FLAGS.null_score_diff_threshold,
        init_checkpoint=FLAGS.init_checkpoint, seed=FLAGS.seed))
    trainer = Trainer(task, options)

    if FLAGS.do_train:
        train_epochs(trainer, task, FineTuningSettings(
            train_batch_size=FLAGS.train_batch_size, learning_rate=FLAGS.learning_rate,
            num_train_epochs=FLAGS.num_train_epochs, warmup_proportion=FLAGS.warmup_proportion,
            optimizer=FLAGS.optimizer))
    if trainer.is_chief and (FLAGS.do_train or FLAGS.export_dir):
        write_export(task.config, options.output_dir, FLAGS.export_dir)
    if not (FLAGS.do_predict or FLAGS.do_eval):
        return
    predictions = task.predictions(trainer.predict(FLAGS.predict_batch_size, split="predict"))
    if not trainer.is_chief:
        return
    for path in write_predictions(predictions, options.output_dir):
        logging.info("Wrote %s", path)
    squad_file = task.split("predict").squad_file
    if FLAGS.do_eval or squad_file.has_answers:
        results = task.score(predictions)
        logging.info("%s: %s", squad_file.path, results)
        atomic_write_text(os.path.join(options.output_dir, EVAL_RESULTS),
                          json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    app.run(main)
