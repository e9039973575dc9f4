"""XLNet's part of `run_pretraining.py`: its flags (the original's names), its
task from them, and the checks its records and batches need."""

import sys

import numpy as np
from absl import app, flags

from data.pretraining.records_metadata import check_settings
from families.xlnet.config import XLNetConfig
from families.xlnet.pretraining.features import INPUT
from families.xlnet.pretraining.task import XLNetPretrainingTask, check_lengths

FLAGS = flags.FLAGS


def define_flags():
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


def build_task():
    """(task, its config, where the config comes from, the record features
    holding token ids); lengths that cannot train stop the run with an `error:`
    line before output_dir is touched."""
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
    return task, task.config, source, (INPUT,)


def record_settings(slices):
    """What XLNet records' metadata must agree with beyond the reader's own
    checks: training batches must be the writer's rows, so that memory and
    bi_data's backward halves line up."""
    settings = {"bi_data": (FLAGS.bi_data, "--bi_data")}
    if FLAGS.do_train:
        settings["bsz_per_host"] = (FLAGS.train_batch_size, "--train_batch_size")
    if FLAGS.bi_data:
        settings["num_core_per_host"] = (slices, "replicas x --grad_accum_steps")
    return settings


def check_run(files, replicas, slices):
    """With `bi_data` every slice of a batch needs forward and backward halves;
    the records must have been written with these batches."""
    if FLAGS.bi_data and FLAGS.train_batch_size % (2 * slices):
        raise app.UsageError(
            f"--bi_data: each of the {slices} slices of a batch (replicas x --grad_accum_steps) needs "
            f"forward and backward halves; --train_batch_size={FLAGS.train_batch_size} does not split so")
    if FLAGS.bi_data and FLAGS.do_eval and FLAGS.eval_batch_size % (2 * replicas):
        raise app.UsageError(
            f"--bi_data: each of the {replicas} replicas' evaluation batches needs forward and backward "
            f"halves; --eval_batch_size={FLAGS.eval_batch_size} does not split so")
    check_settings(files, "xlnet", record_settings(slices))


# What `python -m demo.unigram_baseline --model=xlnet` reads the records with:
# (flag type, name, default, help), its flags beside the shared ones.
TARGET_FLAGS = (("integer", "seq_len", 512, "the records' seq_len."),
                ("integer", "reuse_len", 256, "the records' reuse_len."),
                ("integer", "num_predict", 85, "the records' num_predict."))


def scored_targets(config, path, batch_size):
    """Every target id that one evaluation pass of XLNet over `path` scores."""
    task = XLNetPretrainingTask(config, path, FLAGS.seq_len, FLAGS.reuse_len, FLAGS.reuse_len,
                                FLAGS.num_predict)
    return np.concatenate([labels["target"].numpy()[labels["target_mask"].numpy() > 0]
                           for _, labels in task.build_dataset("eval", batch_size, training=False)])
