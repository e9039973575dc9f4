"""Builds ELMo's word vocabulary from a corpus (one sentence per line, the
files the other families' writers read): `<S>`, `</S>`, `<UNK>`, then every
word (`families.elmo.characters.split_words`, case kept) seen at least
`--min_count` times, most frequent first, as the original's vocabulary files
(its sampled softmax draws low ids more often). Written atomically.

Example:
  python build_vocab.py --model=elmo --input_file='corpus/*.txt' --vocab_file=vocab.txt \\
    --min_count=3 --max_size=800000
"""

import sys

from absl import flags, logging

from data.family_commands import command_name
from data.pretraining.corpus_reader import (CorpusError, ReadStats, expand_input_files,
                                            read_documents)
from families.elmo.pretraining.vocabulary import count_words, vocabulary_words, write_vocabulary

FLAGS = flags.FLAGS


def define_flags():
    """Its flags."""
    flags.DEFINE_string("input_file", None, "Comma-separated text files or globs, one sentence per line.")
    flags.DEFINE_string("vocab_file", "vocab.txt", "Where the vocabulary is written.")
    flags.DEFINE_integer("min_count", 1, "Least times a word is seen to be kept.")
    flags.DEFINE_integer("max_size", None, "Most entries, the three special tokens included.")


REQUIRED = ("input_file",)


def main(_):
    try:
        stats = ReadStats()
        counts = count_words(read_documents(expand_input_files(FLAGS.input_file), stats, strict_utf8=True))
        words = vocabulary_words(counts, FLAGS.min_count, FLAGS.max_size)
        write_vocabulary(words, FLAGS.vocab_file)
    except (CorpusError, OSError) as e:
        sys.exit(f"{command_name()}: {e}")
    kept = sum(counts[w] for w in words)
    logging.info("%s: %d entries from %d lines of %d files; they cover %.2f%% of the %d words read",
                 FLAGS.vocab_file, len(words), stats.lines, stats.files,
                 100 * kept / max(sum(counts.values()), 1), sum(counts.values()))
