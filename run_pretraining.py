"""Pretrains BERT on TFRecords from `create_pretraining_data.py`, or with
`--model=xlnet` XLNet on TFRecords from `create_xlnet_pretraining_data.py`.

Flags keep google-research/bert's names, so published command lines run
unchanged; the shared run flags (strategy, precision, checkpoints, ...) are in
`tasks/run_options.py`, the model, text and training flags in `tasks/flag_groups.py`.

Example (phase 1, then phase 2 at length 512 from phase 1's weights):
    python run_pretraining.py --input_file=data/seq128-*.tfrecord --output_dir=/tmp/p1 \\
        --preset=bert_base_uncased --do_train --train_batch_size=256 \\
        --max_seq_length=128 --max_predictions_per_seq=20 --num_train_steps=900000 \\
        --num_warmup_steps=10000 --learning_rate=1e-4
    python run_pretraining.py --input_file=data/seq512-*.tfrecord --output_dir=/tmp/p2 \\
        --init_checkpoint=/tmp/p1 --preset=bert_base_uncased --do_train --do_eval \\
        --max_seq_length=512 --max_predictions_per_seq=80 --num_train_steps=100000 ...

XLNet (the original's flag names; --train_batch_size is the records' --bsz_per_host):
    python run_pretraining.py --model=xlnet --input_file=out/xlnet-*.tfrecord --output_dir=/tmp/x \\
        --xlnet_config_file=xlnet_config.json --do_train --train_batch_size=32 --seq_len=512 \\
        --reuse_len=256 --perm_size=256 --num_predict=85 --bi_data --mem_len=384 \\
        --num_train_steps=100000
"""

import os
import sys

from absl import app, flags, logging

from checkpoints.companion_files import check_vocab_fits, config_source, resolve_encoder_config
from data.pretraining import features as F
from families.bert.pretraining.config import MaskingOptions
from data.pretraining.corpus_reader import expand_input_files
from data.pretraining.dataset import check_record_ids
from data.pretraining.records_metadata import RecordLayoutError, check_settings, check_vocab_size
from families.bert.pretraining.tf_masking import DynamicMasker
from families.xlnet.pretraining.features import INPUT as XLNET_INPUT
from data.text.vocab import Vocab
from families.bert.pretrainer import OBJECTIVES
from families.xlnet.config import XLNetConfig
from tasks import run_options
from tasks.flag_groups import define_model_flags, define_text_flags, define_training_flags
from tasks.optimization import OptimizerConfig
from families.bert.pretraining.task import PretrainingTask
from tasks.trainer import Trainer, write_results
from families.xlnet.pretraining.task import XLNetPretrainingTask, check_lengths

FLAGS = flags.FLAGS
run_options.define_flags()
define_model_flags()
define_text_flags(128, "Sequence length of the records (phase 1: 128).",
                  vocab_help="Vocabulary of the records, for --dynamic_masking.", lower_case=False)
define_training_flags(train_help="Whether to run training.",
                      eval_help="Whether to evaluate on --input_file.")
flags.DEFINE_string("input_file", None, "Input TFRecord file(s): comma-separated glob patterns.")
flags.DEFINE_integer("max_predictions_per_seq", 20, "Masked-LM predictions per sequence.")
flags.DEFINE_integer("num_train_steps", 100000, "Number of updates.")
flags.DEFINE_integer("num_warmup_steps", 10000, "Linear warmup updates.")
flags.DEFINE_integer("max_eval_steps", 100, "Most evaluation batches of --eval_batch_size, read in "
                     "order from --input_file; a shorter input is evaluated whole.")
flags.DEFINE_enum("objective", "mlm_nsp", OBJECTIVES,
                  "mlm_nsp (BERT), mlm (No-NSP ablation) or ltr (left-to-right LM, causal mask).")
flags.DEFINE_bool("dynamic_masking", False,
                  "Re-mask the training records with fresh masks every epoch (needs --vocab_file).")
flags.DEFINE_float("masked_lm_prob", 0.15, "Share of tokens masked by --dynamic_masking.")
flags.DEFINE_bool("do_whole_word_mask", False, "--dynamic_masking masks whole words.")
flags.DEFINE_integer("max_sequences_per_pack", 0,
                     "Read packed rows of up to this many instances (pack_pretraining_data.py); "
                     "0: one instance per row.")

flags.DEFINE_enum("model", "bert", ["bert", "xlnet"], "The model family to pretrain.")
flags.DEFINE_string("xlnet_config_file", None, "xlnet_config.json of the model (or --preset, "
                    "e.g. xlnet_base_cased); --model=xlnet.")
flags.DEFINE_integer("seq_len", 512, "XLNet: sequence length of the records.")
flags.DEFINE_integer("reuse_len", 256, "XLNet: the records' reuse_len (permuted apart from the rest).")
flags.DEFINE_integer("perm_size", 256, "XLNet: length of the permuted blocks; divides reuse_len "
                     "and seq_len - reuse_len.")
flags.DEFINE_integer("num_predict", 85, "XLNet: targets predicted per sequence.")
flags.DEFINE_integer("mem_len", 0, "XLNet: hidden states of earlier segments each layer keeps as "
                     "memory, carried from one step to the next and saved with each checkpoint; "
                     "0: none.")
flags.DEFINE_bool("bi_data", True, "XLNet: records written with --bi_data, --bsz_per_host="
                  "--train_batch_size and --num_core_per_host=replicas x --grad_accum_steps.")


def dynamic_masker():
    """The `--dynamic_masking` masker, or None."""
    if not FLAGS.dynamic_masking:
        return None
    if not FLAGS.vocab_file:
        raise app.UsageError("--dynamic_masking needs --vocab_file.")
    return DynamicMasker(Vocab.from_file(FLAGS.vocab_file), MaskingOptions(
        max_predictions_per_seq=FLAGS.max_predictions_per_seq,
        masked_lm_prob=FLAGS.masked_lm_prob, do_whole_word_mask=FLAGS.do_whole_word_mask))


def bert_task():
    """(task, config, its source, the config's file name, vocab size, id features)."""
    config = resolve_encoder_config(FLAGS.bert_config_file, FLAGS.preset, FLAGS.init_checkpoint)
    source = config_source(FLAGS.bert_config_file, FLAGS.preset, FLAGS.init_checkpoint)
    if FLAGS.vocab_file:
        check_vocab_fits(config, source, FLAGS.vocab_file)
    task = PretrainingTask(
        config, FLAGS.input_file, FLAGS.max_seq_length, FLAGS.max_predictions_per_seq,
        objective=FLAGS.objective, init_checkpoint=FLAGS.init_checkpoint,
        dynamic_masker=dynamic_masker(), seed=FLAGS.seed,
        max_sequences_per_pack=FLAGS.max_sequences_per_pack)
    return (task, task.config, source, config.config_file_name, config.vocab_size,
            (F.INPUT_IDS, F.MASKED_LM_IDS))


def xlnet_task():
    """As `bert_task`, for --model=xlnet; lengths that cannot train stop the run
    with an `error:` line before output_dir is touched."""
    try:
        check_lengths(FLAGS.seq_len, FLAGS.reuse_len, FLAGS.perm_size, FLAGS.num_predict, FLAGS.mem_len)
    except ValueError as e:
        sys.exit(f"error: {e}")
    if FLAGS.xlnet_config_file:
        config, source = XLNetConfig.from_json_file(FLAGS.xlnet_config_file), FLAGS.xlnet_config_file
    elif FLAGS.preset:
        config, source = XLNetConfig.from_preset(FLAGS.preset), f"--preset={FLAGS.preset}"
    else:
        raise app.UsageError("--model=xlnet needs --xlnet_config_file or --preset.")
    config = config.replace(bi_data=FLAGS.bi_data, mem_len=FLAGS.mem_len)
    task = XLNetPretrainingTask(
        config, FLAGS.input_file, FLAGS.seq_len, FLAGS.reuse_len, FLAGS.perm_size, FLAGS.num_predict,
        init_checkpoint=FLAGS.init_checkpoint, seed=FLAGS.seed)
    return task, task.config, source, config.config_file_name, config.n_token, (XLNET_INPUT,)


def xlnet_record_settings(slices):
    """What XLNet records' metadata must agree with beyond the reader's own
    checks: training batches must be the writer's rows, so that memory and
    bi_data's backward halves line up."""
    settings = {"bi_data": (FLAGS.bi_data, "--bi_data")}
    if FLAGS.do_train:
        settings["bsz_per_host"] = (FLAGS.train_batch_size, "--train_batch_size")
    if FLAGS.bi_data:
        settings["num_core_per_host"] = (slices, "replicas x --grad_accum_steps")
    return settings


def main(argv):
    try:
        pretrain(argv)
    except RecordLayoutError as e:
        sys.exit(f"error: {e}")


def pretrain(_):
    if not FLAGS.do_train and not FLAGS.do_eval:
        raise app.UsageError("At least one of --do_train or --do_eval must be set.")
    for name in ("input_file", "output_dir"):
        if not FLAGS[name].value:
            raise app.UsageError(f"--{name} is required.")
    options = run_options.RunOptions.from_flags()
    make_task = xlnet_task if FLAGS.model == "xlnet" else bert_task
    task, config, source, config_name, vocab_size, id_features = make_task()
    trainer = Trainer(task, options)
    replicas = trainer.strategy.num_replicas_in_sync
    slices = options.grad_accum_steps * replicas
    if FLAGS.model == "xlnet" and FLAGS.bi_data and FLAGS.train_batch_size % (2 * slices):
        raise app.UsageError(
            f"--bi_data: each of the {slices} slices of a batch (replicas x --grad_accum_steps) needs "
            f"forward and backward halves; --train_batch_size={FLAGS.train_batch_size} does not split so")
    if FLAGS.model == "xlnet" and FLAGS.bi_data and FLAGS.do_eval and FLAGS.eval_batch_size % (2 * replicas):
        raise app.UsageError(
            f"--bi_data: each of the {replicas} replicas' evaluation batches needs forward and backward "
            f"halves; --eval_batch_size={FLAGS.eval_batch_size} does not split so")
    # After the Trainer: reading records starts TensorFlow's runtime, which a
    # multi-worker strategy must be created before.
    files = expand_input_files(FLAGS.input_file)
    if FLAGS.model == "xlnet":
        check_settings(files, "xlnet", xlnet_record_settings(slices))
    for path in check_vocab_size(files, vocab_size, config.vocab_size_field, source):
        check_record_ids(path, vocab_size, source, id_features=id_features,
                         vocab_size_field=config.vocab_size_field)
    if FLAGS.do_train:
        trainer.train(FLAGS.train_batch_size, FLAGS.num_train_steps, OptimizerConfig(
            name=FLAGS.optimizer, learning_rate=FLAGS.learning_rate,
            num_warmup_steps=FLAGS.num_warmup_steps))
        if trainer.is_chief:
            config.to_json_file(os.path.join(FLAGS.output_dir, config_name))
    if FLAGS.do_eval:
        results = trainer.evaluate(FLAGS.eval_batch_size, max_steps=FLAGS.max_eval_steps)
        logging.info("***** Eval results *****\n%s", "\n".join(
            f"  {k} = {results[k]}" for k in sorted(results)))
        if trainer.is_chief:
            write_results(os.path.join(FLAGS.output_dir, "eval_results.txt"), results)


if __name__ == "__main__":
    app.run(main)
