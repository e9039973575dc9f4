"""Writes ELMo's biLM pretraining TFRecords from raw text, in parallel and streaming.

Input as the other families' writers read it (one sentence per line, a blank
line between documents); each line's words are `families.elmo.characters.split_words`'
(case kept), looked up in `--vocab_file` (`build_vocab.py --model=elmo`). Records are
the windows of the original's `bilm/data.py`: `--unroll_steps` inputs and
their next tokens, forward and backward, for `--batch_size` rows whose streams
continue from one batch to the next (features `token_ids next_token_id tokens`
and the same `_reverse`; `tokens` are the words, for the character inputs).
Differences: the corpus streams through in chunks of `--documents_per_chunk`
documents, each chunk its own stream of sentences in corpus order (the
original loads shards at random and shuffles their sentences); forward and
backward read the same sentences (the original draws each direction's
separately). Training reads them with `run_pretraining.py --model=elmo` at
`--train_batch_size` = `--batch_size`.

Example:
  python create_pretraining_data.py --model=elmo --input_file=corpus/*.txt \\
    --output_file=out/elmo.tfrecord --output_shards=4 --vocab_file=vocab.txt \\
    --batch_size=128 --unroll_steps=20 --num_workers=2
"""

from absl import flags

from data.pretraining import command_line
from families.elmo.pretraining.chunks import ELMoChunkProcessor, ELMoDataConfig, summary_lines

FLAGS = flags.FLAGS


def define_flags():
    """Its flags."""
    command_line.define_writer_flags("Documents per stream of sentences (unit of work).")
    flags.DEFINE_string("vocab_file", None, "The biLM's word vocabulary (build_vocab.py --model=elmo).")
    flags.DEFINE_integer("batch_size", 128, "Rows of the streams: the training batch size that carrying "
                         "the LSTM state needs.")
    flags.DEFINE_integer("unroll_steps", 20, "Inputs per window.")


REQUIRED = ("input_file", "output_file", "vocab_file")
parse_flags = command_line.parse_flags  # options it does not define go to Beam with --runner


def main(argv):
    command_line.write_and_report(
        lambda: ELMoDataConfig(batch_size=FLAGS.batch_size, unroll_steps=FLAGS.unroll_steps),
        FLAGS.vocab_file, True, ELMoChunkProcessor, argv, summary_lines)
