"""Fine-tunes any family (BERT, XLNet, OpenAI GPT, ELMo: the config picks it) for extractive
question answering on SQuAD v1.1 or v2.0. The task is `tasks/question_answering/`.

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

XLNet: the config picks the family (`xlnet_config.json` beside the checkpoint,
`--bert_config_file=xlnet_config.json` or `--preset=xlnet_base_cased`), the
vocabulary is `--spiece_model_file` (or `spiece.model` beside the checkpoint),
`--do_lower_case` defaults to false; the original's SQuAD 2.0 head (answer
class, `--start_n_top` x `--end_n_top` beam) starts from scratch:

    python run_squad.py --init_checkpoint=xlnet_cased_L-24_H-1024_A-16/xlnet_model.ckpt \\
        --do_train --train_file=train-v2.0.json --do_predict --predict_file=dev-v2.0.json \\
        --version_2_with_negative --max_seq_length=512 --doc_stride=128 \\
        --train_batch_size=48 --learning_rate=3e-5 --num_train_epochs=2 --output_dir=/tmp/squad_xlnet

Its predictions are always the best span; `null_odds.json` holds the smallest
answer-class logit over the windows, and `eval_results.json` answers "" where
it exceeds `--null_score_diff_threshold` (and searches the best threshold).

OpenAI GPT: `gpt_config.json` beside the checkpoint (or `--bert_config_file`) picks it,
`--vocab_file` is its `encoder_bpe_40000.json` (the merges beside it); windows are
`_start_ question _delimiter_ paragraph _classify_` (docs/tasks/question-answering.md).

`--export_dir` writes the SQuAD SavedModel for any family (raw question and
context in, answers out; `tasks/question_answering/serving.py`), which
answers "" past the same threshold as the family's predictions.
"""

from absl import app, flags

from contracts import registry
from export.export_model import fine_tune_and_export
from tasks.question_answering.task import QuestionAnsweringConfig, QuestionAnsweringTask
from training.flag_groups import (check_fine_tuning_flags, define_fine_tuning_flags,
                                  define_model_flags, define_text_flags, do_lower_case_from_flags,
                                  feature_head_from_flags, model_files_from_flags,
                                  settings_from_flags)
from training.input_errors import reporting_input_errors
from training.run_options import RunOptions, define_flags

define_flags()
define_model_flags()
define_text_flags(384, "Tokens per window after WordPiece (XLNet: SentencePiece).")
define_fine_tuning_flags(
    unit="Windows", data_dir=None, eval_batch_size=False,
    predict_help="Predict answers for --predict_file.",
    eval_help="Score the predictions (official EM/F1) into eval_results.json; automatic when "
              "--predict_file has answers.",
    export_help="the serving SavedModel (question and context in, answer out).")
# Original google-research/bert flags.
flags.DEFINE_string("train_file", None, "SQuAD json for training, e.g. train-v1.1.json.")
flags.DEFINE_string("predict_file", None, "SQuAD json to predict, e.g. dev-v1.1.json.")
flags.DEFINE_integer("doc_stride", 128, "Context pieces between the starts of two windows.")
flags.DEFINE_integer("max_query_length", 64, "Question pieces kept; longer questions are cut.")
flags.DEFINE_integer("n_best_size", 20, "Candidates kept per question in nbest_predictions.json.")
flags.DEFINE_integer("max_answer_length", 30, "Longest answer, in word pieces.")
flags.DEFINE_bool("version_2_with_negative", False, "SQuAD 2.0: questions may have no answer.")
flags.DEFINE_float("null_score_diff_threshold", 0.0, "SQuAD 2.0: answer \"\" when the null "
                   "score exceeds the best non-null score by more than this (XLNet: when the "
                   "null score, its answer-class logit, exceeds this; applied in scoring).")
# The families' own flags for their heads (XLNet's beam: --start_n_top, --end_n_top).
HEAD_FLAGS = []
for _family in registry.families():
    for _name, _default, _help in getattr(_family.question_answering, "flags", ()):
        if _name not in HEAD_FLAGS:
            flags.DEFINE_integer(_name, _default, f"{_family.title}: {_help}")
            HEAD_FLAGS.append(_name)

FLAGS = flags.FLAGS


@reporting_input_errors
def main(_):
    check_fine_tuning_flags(required=())
    if FLAGS.do_train and not FLAGS.train_file:
        raise app.UsageError("--do_train needs --train_file")
    if (FLAGS.do_predict or FLAGS.do_eval) and not FLAGS.predict_file:
        raise app.UsageError("--do_predict / --do_eval need --predict_file")
    options = RunOptions.from_flags()
    vocab_file, encoder_config = model_files_from_flags("question_answering")
    task = QuestionAnsweringTask(QuestionAnsweringConfig(
        vocab_file=vocab_file,
        encoder_config=encoder_config,
        train_file=FLAGS.train_file, predict_file=FLAGS.predict_file,
        do_lower_case=do_lower_case_from_flags(encoder_config), max_seq_length=FLAGS.max_seq_length,
        doc_stride=FLAGS.doc_stride, max_query_length=FLAGS.max_query_length,
        version_2_with_negative=FLAGS.version_2_with_negative, n_best_size=FLAGS.n_best_size,
        max_answer_length=FLAGS.max_answer_length,
        null_score_diff_threshold=FLAGS.null_score_diff_threshold,
        init_checkpoint=FLAGS.init_checkpoint,
        **{name: FLAGS[name].value for name in HEAD_FLAGS},
        trim_padding=options.distribution_strategy != "tpu" and not options.jit_compile,
        fine_tune_encoder=FLAGS.fine_tune_encoder, **feature_head_from_flags(encoder_config),
        seed=FLAGS.seed))
    # --do_eval also writes the predictions; --do_predict also scores them when it can.
    predict = FLAGS.do_predict or FLAGS.do_eval
    fine_tune_and_export(task, options, settings_from_flags(
        do_predict=predict, do_eval=FLAGS.do_eval or (predict and task.has_answers())),
        FLAGS.export_dir, FLAGS.export_precision)


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    app.run(main)
