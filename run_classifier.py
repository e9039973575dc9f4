"""Fine-tunes any family (BERT, XLNet, OpenAI GPT, ELMo: the config picks it) for
sentence and sentence-pair classification: every GLUE task (CoLA, SST-2, MRPC, QQP,
STS-B, MNLI, QNLI, RTE, WNLI), XNLI, and the user's own TSV / CSV / JSON-lines
data (`--task_name=custom`). The task is `tasks/classification/`.

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

XLNet: the config picks the family (`xlnet_config.json` beside the checkpoint,
`--bert_config_file=xlnet_config.json` or `--preset=xlnet_base_cased`), and
the vocabulary is `--spiece_model_file` (or `spiece.model` beside the
checkpoint); `--do_lower_case` defaults to false for XLNet:

    python run_classifier.py --task_name=MRPC --do_train --do_eval --data_dir=glue_data/MRPC \\
        --init_checkpoint=xlnet_cased_L-12_H-768_A-12/xlnet_model.ckpt \\
        --spiece_model_file=xlnet_cased_L-12_H-768_A-12/spiece.model \\
        --max_seq_length=128 --train_batch_size=32 --learning_rate=2e-5 --output_dir=/tmp/mrpc_xlnet

Custom data (`data_dir/{train,dev,test}.{tsv,csv,jsonl}`, columns named):

    python run_classifier.py --task_name=custom --data_dir=reviews \\
        --text_a_column=review --label_column=stars --init_checkpoint=... ...
"""

import dataclasses

import keras
from absl import app, flags, logging

from export.export_model import check_export_dir, export_after_training
from tasks.classification.custom_reader import CustomReader
from tasks.classification.glue_readers import GlueReader
from tasks.classification.metrics import selection_score
from tasks.classification.task import ClassificationConfig, ClassificationTask
from training.fine_tuning import fine_tune
from training.flag_groups import (check_fine_tuning_flags, define_fine_tuning_flags,
                                  define_model_flags, define_text_flags, do_lower_case_from_flags,
                                  feature_head_from_flags, model_files_from_flags,
                                  settings_from_flags)
from training.input_errors import reporting_input_errors
from training.learning_rate_sweep import plan_runs, run_sweep
from training.run_options import RunOptions, define_flags

define_flags()
define_model_flags()
define_text_flags(128, "Tokens per example after WordPiece (XLNet: SentencePiece); longer "
                  "pairs are truncated longest first.")
define_fine_tuning_flags(
    eval_help="Metrics on the dev split(s), to eval_results.txt.",
    predict_help="Test predictions in the GLUE submission format.",
    data_dir="Directory of the task's files.", skip_bad_rows=True,
    export_help="the serving SavedModel (raw text in) of the best run.")
# Original google-research/bert flags.
flags.DEFINE_string("task_name", None, "cola, sst-2, mrpc, qqp, sts-b, mnli, qnli, rte, wnli, "
                    "xnli or custom (case-insensitive).")
# Additions.
flags.DEFINE_list("learning_rates", None, "Several peak learning rates (e.g. 5e-5,4e-5,3e-5,2e-5): "
                  "one run each, the best on dev is kept. Overrides --learning_rate.")
flags.DEFINE_integer("num_restarts", 1, "Runs per learning rate with different data order "
                     "and head initialisation (seed + k); the best on dev is kept.")
flags.DEFINE_bool("group_by_length", False, "Train on batches of similar lengths (from "
                  "windows of 50 shuffled batches): much less padding, a bit less randomness.")
flags.DEFINE_string("xnli_language", "zh", "XNLI: the language trained and evaluated on.")
flags.DEFINE_string("text_a_column", None, "custom: column (or JSON key) of the first text.")
flags.DEFINE_string("text_b_column", None, "custom: column of the second text, for pairs.")
flags.DEFINE_string("label_column", "label", "custom: column of the label.")
flags.DEFINE_string("id_column", None, "custom: column of the example id (default: row order).")
flags.DEFINE_list("label_list", None, "custom: the labels (default: those in the train file).")
flags.DEFINE_bool("regression", False, "custom: the label is a number (squared-error loss, "
                  "Pearson and Spearman).")
flags.DEFINE_bool("similarity", False, "custom: the two texts' order carries no meaning (as STS-B, "
                  "MRPC, QQP); a family that encodes such pairs in both orders (GPT) does.")

FLAGS = flags.FLAGS


def make_reader():
    if FLAGS.task_name.lower() == "custom":
        return CustomReader(FLAGS.data_dir, FLAGS.text_a_column, FLAGS.label_column,
                            FLAGS.text_b_column, FLAGS.id_column, FLAGS.label_list,
                            FLAGS.regression, FLAGS.skip_bad_rows, FLAGS.similarity)
    return GlueReader(FLAGS.task_name, FLAGS.data_dir, FLAGS.skip_bad_rows, FLAGS.xnli_language)


@reporting_input_errors
def main(_):
    check_fine_tuning_flags(required=("task_name", "data_dir"))
    learning_rates = [float(v) for v in FLAGS.learning_rates or [FLAGS.learning_rate]]
    options = RunOptions.from_flags()
    check_export_dir(FLAGS.export_dir, options.output_dir)
    runs = plan_runs(options.output_dir, learning_rates, FLAGS.num_restarts, FLAGS.seed)
    if len(runs) > 1 and not FLAGS.do_eval:
        raise app.UsageError("--learning_rates / --num_restarts pick the best run on dev: "
                             "add --do_eval")
    reader = make_reader()
    vocab_file, encoder_config = model_files_from_flags("classification")
    head = feature_head_from_flags(encoder_config)
    tasks = []

    def run_one(run):
        keras.utils.clear_session()
        tasks.append(ClassificationTask(ClassificationConfig(
            reader=reader, vocab_file=vocab_file, encoder_config=encoder_config,
            cache_dir=options.output_dir, do_lower_case=do_lower_case_from_flags(encoder_config),
            max_seq_length=FLAGS.max_seq_length, init_checkpoint=FLAGS.init_checkpoint,
            trim_padding=options.distribution_strategy != "tpu" and not options.jit_compile,
            group_by_length=FLAGS.group_by_length, fine_tune_encoder=FLAGS.fine_tune_encoder,
            **head, seed=run.seed)))
        return fine_tune(tasks[-1], dataclasses.replace(options, output_dir=run.output_dir,
                                                        seed=run.seed),
                         settings_from_flags(learning_rate=run.learning_rate))

    best, outcome = run_sweep(
        runs, run_one, lambda results: selection_score(
            reader.name, reader.is_regression, results, prefix="eval_"))
    if outcome.results:
        logging.info("Dev results of %s: %s", best.output_dir, outcome.results)
    if outcome.is_chief:
        export_after_training(tasks[-1].export_meta(), best.output_dir, FLAGS.export_dir,
                              FLAGS.do_train, FLAGS.export_precision)


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    app.run(main)
