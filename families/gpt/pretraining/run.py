"""GPT's part of `run_pretraining.py`: its task from the shared flags (the
config from --bert_config_file, --preset or beside --init_checkpoint; the
window length from --max_seq_length; --vocab_file, when given, checked against
the config) and the checks its records need. GPT adds no flags of its own."""

import sys

import numpy as np
from absl import flags

from checkpoints.companion_files import config_source, resolve_encoder_config
from data.pretraining import features as F
from families.gpt.config import GPTConfig
from families.gpt.pretraining.dataset import check_records
from families.gpt.pretraining.task import GPTPretrainingTask
from families.gpt.tokenizer import GPTTokenizer

FLAGS = flags.FLAGS


def define_flags():
    """None: GPT pretrains on the shared flags."""


def check_vocabulary(config, source, vocab_file):
    """Raises ValueError naming both files when the BPE encoder has pieces past
    the config's `n_vocab` (their ids would index past the token embedding)."""
    n_vocab = GPTTokenizer.from_file(vocab_file).bpe.n_vocab
    if n_vocab > config.n_vocab:
        raise ValueError(f"{vocab_file} has {n_vocab} BPE pieces but {source} has n_vocab={config.n_vocab}: "
                         "use the vocabulary the records were written with, or a config with "
                         f"n_vocab={n_vocab}")


def build_task():
    """(task, its config, where the config comes from, the record features
    holding token ids); a config, vocabulary or length that cannot train stops
    the run with an `error:` line before output_dir is touched."""
    try:
        config = resolve_encoder_config(FLAGS.bert_config_file, FLAGS.preset, FLAGS.init_checkpoint)
        source = config_source(FLAGS.bert_config_file, FLAGS.preset, FLAGS.init_checkpoint)
        if not isinstance(config, GPTConfig):
            raise ValueError(f"--model=gpt needs a GPT config (gpt_config.json, --preset=gpt); {source} "
                             f"is a {type(config).__name__}")
        if FLAGS.vocab_file:
            check_vocabulary(config, source, FLAGS.vocab_file)
        task = GPTPretrainingTask(config, FLAGS.input_file, FLAGS.max_seq_length,
                                  init_checkpoint=FLAGS.init_checkpoint, seed=FLAGS.seed)
    except ValueError as e:
        sys.exit(f"error: {e}")
    return task, task.config, source, (F.INPUT_IDS,)


def check_run(files, replicas, slices):
    """The records must be GPT windows of --max_seq_length tokens."""
    check_records(files, FLAGS.max_seq_length)


# What `python -m demo.unigram_baseline --model=gpt` reads the records with.
TARGET_FLAGS = (("integer", "max_seq_length", 512, "the records' window length."),)


def scored_targets(config, path, batch_size):
    """Every next token that one evaluation pass of GPT over `path` scores."""
    task = GPTPretrainingTask(config, path, FLAGS.max_seq_length)
    return np.concatenate([labels["input_ids"].numpy()[:, 1:][labels["input_mask"].numpy()[:, 1:] > 0]
                           for _, labels in task.build_dataset("eval", batch_size, training=False)])
