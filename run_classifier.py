"""Fine-tunes BERT for sentence and sentence-pair classification: every GLUE
task (CoLA, SST-2, MRPC, QQP, STS-B, MNLI, QNLI, RTE, WNLI), XNLI, and the
user's own TSV / CSV / JSON-lines data (`--task_name=custom`).

The original command lines run unchanged:

    python run_classifier.py --task_name=MRPC --do_train --do_eval \\
        --data_dir=glue_data/MRPC --vocab_file=uncased_L-12_H-768_A-12/vocab.txt \\
        --bert_config_file=uncased_L-12_H-768_A-12/bert_config.json \\
        --init_checkpoint=uncased_L-12_H-768_A-12/bert_model.ckpt \\
        --max_seq_length=128 --train_batch_size=32 --learning_rate=2e-5 \\
        --num_train_epochs=3.0 --output_dir=/tmp/mrpc_output/

`--bert_config_file` and `--vocab_file` may be left out when they lie beside
`--init_checkpoint` (original release and Hugging Face directories).
`--do_eval` writes `eval_results.txt` (and TensorBoard summaries);
`--do_predict` writes the test predictions in the GLUE submission format
(`MRPC.tsv`, `MNLI-m.tsv`, ...). The paper's protocol:
`--learning_rates=5e-5,4e-5,3e-5,2e-5 --num_restarts=5` keeps the best on dev.

Custom data (`data_dir/{train,dev,test}.{tsv,csv,jsonl}`, columns named):

    python run_classifier.py --task_name=custom --data_dir=reviews \\
        --text_a_column=review --label_column=stars --init_checkpoint=... ...
"""

import dataclasses

import keras
from absl import app, flags, logging

from checkpoints.companion_files import resolve_model_files
from data.custom_reader import CustomReader
from data.glue_readers import GlueReader
from export.export_meta import ExportMeta, write_export_meta
from export.export_model import export_model
from tasks.fine_tuning import FineTuningSettings, fine_tune
from tasks.learning_rate_sweep import plan_runs, run_sweep
from tasks.classification_metrics import selection_score
from tasks.run_options import RunOptions, define_flags
from tasks.classification import ClassificationConfig, ClassificationTask

define_flags()
# Original google-research/bert flags.
flags.DEFINE_string("task_name", None, "cola, sst-2, mrpc, qqp, sts-b, mnli, qnli, rte, wnli, "
                    "xnli or custom (case-insensitive).")
flags.DEFINE_string("data_dir", None, "Directory of the task's files.")
flags.DEFINE_string("vocab_file", None, "WordPiece vocab (default: vocab.txt beside "
                    "--init_checkpoint).")
flags.DEFINE_bool("do_lower_case", True, "Lower-case the input (uncased models).")
flags.DEFINE_integer("max_seq_length", 128, "Tokens per example after WordPiece; longer "
                     "pairs are truncated longest first.")
flags.DEFINE_bool("do_train", False, "Fine-tune on the train split.")
flags.DEFINE_bool("do_eval", False, "Metrics on the dev split(s), to eval_results.txt.")
flags.DEFINE_bool("do_predict", False, "Test predictions in the GLUE submission format.")
flags.DEFINE_integer("train_batch_size", 32, "Examples per update.")
flags.DEFINE_integer("eval_batch_size", 8, "Examples per evaluation batch.")
flags.DEFINE_integer("predict_batch_size", 8, "Examples per prediction batch.")
flags.DEFINE_float("learning_rate", 5e-5, "Peak AdamW learning rate.")
flags.DEFINE_float("num_train_epochs", 3.0, "Passes over the train split.")
flags.DEFINE_float("warmup_proportion", 0.1, "Share of the steps with linear warmup.")
# Additions.
flags.DEFINE_list("learning_rates", None, "Several peak learning rates (e.g. 5e-5,4e-5,3e-5,2e-5): "
                  "one run each, the best on dev is kept. Overrides --learning_rate.")
flags.DEFINE_integer("num_restarts", 1, "Runs per learning rate with different data order "
                     "and head initialisation (seed + k); the best on dev is kept.")
flags.DEFINE_bool("group_by_length", False, "Train on batches of similar lengths (from "
                  "windows of 50 shuffled batches): much less padding, a bit less randomness.")
flags.DEFINE_bool("skip_bad_rows", False, "Skip malformed rows with a count instead of "
                  "stopping at the first.")
flags.DEFINE_string("xnli_language", "zh", "XNLI: the language trained and evaluated on.")
flags.DEFINE_string("text_a_column", None, "custom: column (or JSON key) of the first text.")
flags.DEFINE_string("text_b_column", None, "custom: column of the second text, for pairs.")
flags.DEFINE_string("label_column", "label", "custom: column of the label.")
flags.DEFINE_string("id_column", None, "custom: column of the example id (default: row order).")
flags.DEFINE_list("label_list", None, "custom: the labels (default: those in the train file).")
flags.DEFINE_bool("regression", False, "custom: the label is a number (squared-error loss, "
                  "Pearson and Spearman).")

flags.DEFINE_string("export_dir", None, "Write the serving SavedModel (raw text in) of the best "
                    "run here after training.")

FLAGS = flags.FLAGS


def make_reader():
    if FLAGS.task_name.lower() == "custom":
        return CustomReader(FLAGS.data_dir, FLAGS.text_a_column, FLAGS.label_column,
                            FLAGS.text_b_column, FLAGS.id_column, FLAGS.label_list,
                            FLAGS.regression, FLAGS.skip_bad_rows)
    return GlueReader(FLAGS.task_name, FLAGS.data_dir, FLAGS.skip_bad_rows, FLAGS.xnli_language)


def main(_):
    if not (FLAGS.do_train or FLAGS.do_eval or FLAGS.do_predict):
        raise app.UsageError("at least one of --do_train, --do_eval, --do_predict is required")
    for name in ("task_name", "data_dir"):
        if not FLAGS[name].value:
            raise app.UsageError(f"--{name} is required")
    learning_rates = [float(v) for v in FLAGS.learning_rates or [FLAGS.learning_rate]]
    options = RunOptions.from_flags()
    runs = plan_runs(options.output_dir, learning_rates, FLAGS.num_restarts, FLAGS.seed)
    if len(runs) > 1 and not FLAGS.do_eval:
        raise app.UsageError("--learning_rates / --num_restarts pick the best run on dev: "
                             "add --do_eval")
    reader = make_reader()
    vocab_file, bert_config = resolve_model_files(FLAGS.vocab_file, FLAGS.bert_config_file,
                                                  FLAGS.preset, FLAGS.init_checkpoint)

    def run_one(run):
        keras.utils.clear_session()
        task = ClassificationTask(ClassificationConfig(
            reader=reader, vocab_file=vocab_file, bert_config=bert_config,
            cache_dir=options.output_dir, do_lower_case=FLAGS.do_lower_case,
            max_seq_length=FLAGS.max_seq_length, init_checkpoint=FLAGS.init_checkpoint,
            trim_padding=options.distribution_strategy != "tpu" and not options.jit_compile,
            group_by_length=FLAGS.group_by_length,
            seed=run.seed))
        settings = FineTuningSettings(
            do_train=FLAGS.do_train, do_eval=FLAGS.do_eval, do_predict=FLAGS.do_predict,
            train_batch_size=FLAGS.train_batch_size, eval_batch_size=FLAGS.eval_batch_size,
            predict_batch_size=FLAGS.predict_batch_size, learning_rate=run.learning_rate,
            num_train_epochs=FLAGS.num_train_epochs, warmup_proportion=FLAGS.warmup_proportion,
            optimizer=FLAGS.optimizer)
        return fine_tune(task, dataclasses.replace(options, output_dir=run.output_dir,
                                                   seed=run.seed), settings)

    best, outcome = run_sweep(
        runs, run_one, lambda results: selection_score(
            reader.name, reader.is_regression, results, prefix="eval_"))
    if outcome.results:
        logging.info("Dev results of %s: %s", best.output_dir, outcome.results)
    if FLAGS.do_train or FLAGS.export_dir:
        meta = ExportMeta(
            "regression" if reader.is_regression else "classification", bert_config, vocab_file,
            FLAGS.do_lower_case, FLAGS.max_seq_length, reader.label_list, paired=reader.paired)
        write_export_meta(best.output_dir, meta)
        if FLAGS.export_dir:
            path = export_model(meta, FLAGS.export_dir, best.output_dir)
            logging.info("Wrote the serving SavedModel to %s", path)


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    app.run(main)
