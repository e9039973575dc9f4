"""ELMo's part of `run_pretraining.py`: its flags (the original's option names),
its task and optimizer from them, and the checks its records and batches need."""

import os
import sys

import numpy as np
from absl import app, flags

from data.pretraining.records_metadata import check_settings
from families.elmo.config import ELMoConfig, ELMoConfigError
from families.elmo.pretraining import features as E
from families.elmo.pretraining.dataset import elmo_pretraining_dataset
from families.elmo.pretraining.features import ID_FEATURES
from families.elmo.pretraining.optimizer import AdagradConfig
from families.elmo.pretraining.task import ELMoPretrainingTask
from families.elmo.pretraining.vocabulary import LMVocabulary, VocabularyError

FLAGS = flags.FLAGS
ORIGINAL_LEARNING_RATE = 0.2


def define_flags():
    flags.DEFINE_string("options_file", None, "ELMo: options.json of the biLM (or --preset, e.g. elmo_small; "
                        "default: the one beside --init_checkpoint); --model=elmo.")
    flags.DEFINE_integer("unroll_steps", 20, "ELMo: tokens per window of the records (the original's "
                         "unroll_steps).")
    flags.DEFINE_integer("n_negative_samples_batch", 8192, "ELMo: words the sampled softmax draws per "
                         "direction and batch; a vocabulary no larger (or 0) trains with the full softmax.")
    flags.DEFINE_float("all_clip_norm_val", 10.0, "ELMo: global norm the gradients are clipped to (the "
                       "original's Adagrad; --optimizer=adamw/lamb keep theirs).")


def _options():
    """(options, where they come from)."""
    if FLAGS.options_file:
        return ELMoConfig.from_json_file(FLAGS.options_file), FLAGS.options_file
    if FLAGS.preset:
        return ELMoConfig.from_preset(FLAGS.preset), f"--preset={FLAGS.preset}"
    beside = FLAGS.init_checkpoint and os.path.join(
        FLAGS.init_checkpoint if os.path.isdir(FLAGS.init_checkpoint) else os.path.dirname(FLAGS.init_checkpoint),
        ELMoConfig.config_file_name)
    if beside and os.path.isfile(beside):
        return ELMoConfig.from_json_file(beside), beside
    raise app.UsageError("--model=elmo needs --options_file, --preset, or an --init_checkpoint with "
                         "options.json beside it.")


def _uses_original_optimizer():
    return not FLAGS["optimizer"].present


def optimizer_config():
    """The original's Adagrad unless --optimizer names one of the shared
    optimizers (None: run_pretraining.py's own)."""
    if not _uses_original_optimizer():
        return None
    learning_rate = FLAGS.learning_rate if FLAGS["learning_rate"].present else ORIGINAL_LEARNING_RATE
    return AdagradConfig(learning_rate=learning_rate, clip_norm=FLAGS.all_clip_norm_val)


def build_task():
    """(task, its config, where the config comes from, the record features
    holding token ids); bad options or vocabularies stop the run with an
    `error:` line before output_dir is touched."""
    if not FLAGS.vocab_file:
        raise app.UsageError("--model=elmo needs --vocab_file (the biLM's word vocabulary, build_elmo_vocab.py).")
    if _uses_original_optimizer() and FLAGS["num_warmup_steps"].present:
        raise app.UsageError("the original's Adagrad has no warmup: leave --num_warmup_steps out, or give "
                             "--optimizer=adamw or lamb")
    try:
        config, source = _options()
        vocab = LMVocabulary.from_file(FLAGS.vocab_file)
        if FLAGS.options_file and config.n_tokens_vocab not in (None, vocab.size):
            raise ELMoConfigError(f"{source} has n_tokens_vocab={config.n_tokens_vocab} but --vocab_file="
                                  f"{vocab.path} holds {vocab.size} words")
        if FLAGS.unroll_steps < 1:
            raise ELMoConfigError(f"--unroll_steps={FLAGS.unroll_steps} must be >= 1")
    except (ELMoConfigError, VocabularyError) as e:
        sys.exit(f"error: {e}")
    sampled = 0 < FLAGS.n_negative_samples_batch < vocab.size
    if FLAGS.jit_compile:
        raise app.UsageError("--jit_compile: XLA compiles neither the gradient of the biLM's LSTM loop (its "
                             "accumulators have no static shape) nor the sampled softmax's sampler (tf.unique "
                             "in a loop); leave it out")
    config = config.replace(
        bidirectional=True, n_tokens_vocab=vocab.size, unroll_steps=FLAGS.unroll_steps,
        batch_size=FLAGS.train_batch_size, dropout=config.hidden_dropout_prob, sample_softmax=sampled,
        n_negative_samples_batch=FLAGS.n_negative_samples_batch if sampled else None,
        **({"all_clip_norm_val": FLAGS.all_clip_norm_val, "learning_rate": optimizer_config().learning_rate}
           if _uses_original_optimizer() else {}))
    task = ELMoPretrainingTask(config, FLAGS.input_file, vocab, init_checkpoint=FLAGS.init_checkpoint,
                               seed=FLAGS.seed)
    return task, config, source, ID_FEATURES


def check_run(files, replicas, slices):
    """Training batches must be the writer's rows, so that each row continues
    its stream from batch to batch; windows of the records' length."""
    settings = {"unroll_steps": (FLAGS.unroll_steps, "--unroll_steps")}
    if FLAGS.do_train:
        settings["batch_size"] = (FLAGS.train_batch_size, "--train_batch_size")
    check_settings(files, "elmo", settings)


# What `python -m demo.unigram_baseline --model=elmo` reads the records with.
TARGET_FLAGS = (("string", "vocab_file", None, "the biLM's word vocabulary (its size is the model's)."),)


def scored_targets(config, path, batch_size):
    """Every next token, forward and backward, that one evaluation pass of ELMo's
    biLM over `path` scores (its perplexity is over both directions' targets, as
    many each way)."""
    # The task's evaluation reader (every window once, the same checks), without the character ids.
    dataset = elmo_pretraining_dataset(path, batch_size, config.unroll_steps,
                                       LMVocabulary.from_file(FLAGS.vocab_file))
    return np.concatenate([np.ravel(batch[E.NEXT_TOKEN_ID + suffix].numpy())
                           for batch in dataset for _, suffix in E.DIRECTIONS])
