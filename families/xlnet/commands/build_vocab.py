"""Learns XLNet's SentencePiece model from a text corpus (one sentence per
line) and writes `spiece.model` atomically, with `<unk> <s> </s> <cls> <sep>
<pad> <mask> <eod> <eop>` at ids 0..8 as in the original release.

Example:
  python build_vocab.py --model=xlnet --input_file='corpus/*.txt' --model_file=spiece.model \\
    --vocab_size=32000
"""

import sys

from absl import flags

from data.family_commands import command_name
from data.pretraining.corpus_reader import CorpusError
from data.text.sentencepiece_vocab import train_sentencepiece

FLAGS = flags.FLAGS


def define_flags():
    """Its flags."""
    flags.DEFINE_string("input_file", None, "Comma-separated text files or globs, one sentence per line.")
    flags.DEFINE_string("model_file", "spiece.model", "Where the SentencePiece model is written.")
    flags.DEFINE_integer("vocab_size", 32000, "Pieces in the model, special symbols included.")
    flags.DEFINE_float("character_coverage", 0.99995, "Share of characters the model covers (the original's).")


REQUIRED = ("input_file",)


def main(_):
    try:
        train_sentencepiece(FLAGS.input_file, FLAGS.model_file, FLAGS.vocab_size,
                            FLAGS.character_coverage)
    except CorpusError as e:
        sys.exit(f"{command_name()}: {e}")
