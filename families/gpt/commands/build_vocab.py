"""Learns an OpenAI GPT BPE vocabulary from a text corpus and writes
`encoder_bpe_<n>.json` + `vocab_<n>.bpe` in the original release's formats
(`families/gpt/bpe_builder.py`), atomically.

Example:
  python build_vocab.py --model=gpt --input_file='corpus/*.txt' --output_dir=gpt_vocab \\
    --num_merges=40000
"""

import sys

from absl import flags

from data.family_commands import command_name
from data.pretraining.corpus_reader import CorpusError
from families.gpt.bpe_builder import build_bpe_vocabulary

FLAGS = flags.FLAGS


def define_flags():
    """Its flags."""
    flags.DEFINE_string("input_file", None, "Comma-separated text files or globs.")
    flags.DEFINE_string("output_dir", ".", "Where encoder_bpe_<n>.json and vocab_<n>.bpe are written.")
    flags.DEFINE_integer("num_merges", 40000, "Merges to learn (the release has 40,000).")
    flags.DEFINE_integer("vocab_size", None, "Instead of --num_merges: the merges that make this many ids in "
                         "all, the characters and the three special tokens fine-tuning adds included.")
    flags.DEFINE_integer("min_frequency", 2, "A pair seen fewer times is never merged.")


REQUIRED = ("input_file",)


def main(_):
    try:
        paths = build_bpe_vocabulary(FLAGS.input_file, FLAGS.output_dir, FLAGS.num_merges,
                                     FLAGS.min_frequency, FLAGS.vocab_size)
    except CorpusError as e:
        sys.exit(f"{command_name()}: {e}")
    print("\n".join(paths))
