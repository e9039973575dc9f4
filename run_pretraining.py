"""Pretrains BERT on TFRecords from `create_pretraining_data.py`; with
`--model=xlnet` XLNet on TFRecords from `create_xlnet_pretraining_data.py`,
with `--model=gpt` OpenAI GPT on TFRecords from `create_gpt_pretraining_data.py`,
with `--model=elmo` ELMo's biLM on TFRecords from `create_elmo_pretraining_data.py`.

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

OpenAI GPT (the original's recipe: 512-token windows, batch 64, Adam 2.5e-4, 2,000 warmup steps
then cosine decay):
    python run_pretraining.py --model=gpt --input_file=out/gpt-*.tfrecord --output_dir=/tmp/g \\
        --bert_config_file=gpt_config.json --do_train --max_seq_length=512 --train_batch_size=64 \\
        --optimizer=adam --learning_rate=2.5e-4 --num_warmup_steps=2000 \\
        --learning_rate_schedule=cosine --num_train_steps=100000

ELMo (the original's options; its Adagrad unless --optimizer is given):
    python run_pretraining.py --model=elmo --input_file=out/elmo-*.tfrecord --output_dir=/tmp/e \\
        --options_file=options.json --vocab_file=vocab.txt --do_train --train_batch_size=128 \\
        --unroll_steps=20 --n_negative_samples_batch=8192 --num_train_steps=600000
"""

import importlib
import os

from absl import app, flags, logging

from data.pretraining.corpus_reader import expand_input_files
from data.pretraining.dataset import check_record_ids
from data.pretraining.records_metadata import check_listed, check_vocab_size
from families import registry
from tasks import run_options
from tasks.flag_groups import define_model_flags, define_text_flags, define_training_flags
from tasks.input_errors import reporting_input_errors
from tasks.optimization import SCHEDULES, OptimizerConfig
from tasks.trainer import Trainer, write_results

FLAGS = flags.FLAGS
run_options.define_flags()
define_model_flags()
define_text_flags(128, "Sequence length of the records (phase 1: 128).",
                  vocab_help="Vocabulary of the records, for --dynamic_masking.", lower_case=False)
define_training_flags(train_help="Whether to run training.",
                      eval_help="Whether to evaluate on --input_file.")
flags.DEFINE_string("input_file", None, "Input TFRecord file(s): comma-separated glob patterns.")
flags.DEFINE_integer("num_train_steps", 100000, "Number of updates.")
flags.DEFINE_integer("num_warmup_steps", 10000, "Linear warmup updates.")
flags.DEFINE_enum("learning_rate_schedule", "linear", SCHEDULES, "Decay to 0 over all steps after the "
                  "warmup: linear (BERT) or cosine (GPT).")
flags.DEFINE_integer("max_eval_steps", 100, "Most evaluation batches of --eval_batch_size, read in "
                     "order from --input_file; a shorter input is evaluated whole.")
# The families whose records name their part of this command line.
PRETRAINED = tuple(name for name in registry.names() if registry.family(name).pretraining)
flags.DEFINE_enum("model", "bert", PRETRAINED, "The model family to pretrain.")


def pretraining(family):
    """The module of `family`'s part of this command line (its record's
    `pretraining`): `define_flags()`, `build_task()`, `check_run(files, replicas, slices)`,
    optionally `optimizer_config()` (its own optimizer's config, or None for the shared one)."""
    return importlib.import_module(registry.family(family).pretraining)


for _family in PRETRAINED:
    pretraining(_family).define_flags()


@reporting_input_errors
def main(_):
    if not FLAGS.do_train and not FLAGS.do_eval:
        raise app.UsageError("At least one of --do_train or --do_eval must be set.")
    for name in ("input_file", "output_dir"):
        if not FLAGS[name].value:
            raise app.UsageError(f"--{name} is required.")
    options = run_options.RunOptions.from_flags()
    family = pretraining(FLAGS.model)
    task, config, source, id_features = family.build_task()
    trainer = Trainer(task, options)
    replicas = trainer.strategy.num_replicas_in_sync
    slices = options.grad_accum_steps * replicas
    # After the Trainer: reading records starts TensorFlow's runtime, which a
    # multi-worker strategy must be created before.
    files = expand_input_files(FLAGS.input_file)
    check_listed(files)
    family.check_run(files, replicas, slices)
    for path in check_vocab_size(files, config.vocab_size, config.vocab_size_field, source):
        check_record_ids(path, config.vocab_size, source, id_features=id_features,
                         vocab_size_field=config.vocab_size_field)
    if FLAGS.do_train:
        optimizer = getattr(family, "optimizer_config", lambda: None)() or OptimizerConfig(
            name=FLAGS.optimizer, learning_rate=FLAGS.learning_rate,
            num_warmup_steps=FLAGS.num_warmup_steps, schedule=FLAGS.learning_rate_schedule)
        trainer.train(FLAGS.train_batch_size, FLAGS.num_train_steps, optimizer)
        if trainer.is_chief:
            config.to_json_file(os.path.join(FLAGS.output_dir, config.config_file_name))
    if FLAGS.do_eval:
        results = trainer.evaluate(FLAGS.eval_batch_size, max_steps=FLAGS.max_eval_steps)
        logging.info("***** Eval results *****\n%s", "\n".join(
            f"  {k} = {results[k]}" for k in sorted(results)))
        if trainer.is_chief:
            write_results(os.path.join(FLAGS.output_dir, "eval_results.txt"), results)


if __name__ == "__main__":
    app.run(main)
