"""Writes OpenAI GPT pretraining TFRecords from raw text, in parallel and streaming.

Input as the BERT writer's (one sentence per line, a blank line between
documents). Each record is a window of `--max_seq_length` consecutive BPE ids
(`input_ids`, `input_mask`): a chunk of `--documents_per_chunk` documents is
one token stream, its documents' sentences running on and a newline piece
ending each document, cut into windows, the last padded
(`families/gpt/pretraining/records.py`). The original pretrained on 512-token
windows of BooksCorpus; its data code was not released. Training reads them
with `run_pretraining.py --model=gpt`, which shuffles the windows. With `--runner`,
an Apache Beam pipeline writes the same records on that runner
(docs/scaling-out.md); there a line that is not valid UTF-8 is skipped and
listed rather than stopping the job.

Example:
  python create_pretraining_data.py --model=gpt --input_file=corpus/*.txt \\
    --output_file=out/gpt.tfrecord --output_shards=4 --vocab_file=encoder_bpe_40000.json \\
    --max_seq_length=512 --num_workers=2
"""

from absl import flags

from data.pretraining import command_line
from families.gpt.pretraining.chunks import GPTChunkProcessor, summary_lines
from families.gpt.pretraining.config import GPTDataConfig

FLAGS = flags.FLAGS


def define_flags():
    """Its flags."""
    command_line.define_writer_flags("Documents per token stream (unit of work).")
    flags.DEFINE_string("vocab_file", None, "The BPE encoder (encoder_bpe_<n>.json, with vocab_<n>.bpe "
                        "beside it; build_vocab.py --model=gpt).")
    flags.DEFINE_integer("max_seq_length", 512, "Tokens per window.")
    flags.DEFINE_bool("original_tokenizer", False, "Tokenize with the original Python pipeline (ftfy, "
                      "spaCy) rather than the in-graph tokenizer that fine-tuning and exports use.")


REQUIRED = ("input_file", "output_file", "vocab_file")
parse_flags = command_line.parse_flags  # options it does not define go to Beam with --runner


def main(argv):
    command_line.write_and_report(
        lambda: GPTDataConfig(max_seq_length=FLAGS.max_seq_length, original_tokenizer=FLAGS.original_tokenizer),
        FLAGS.vocab_file, True, GPTChunkProcessor, argv, summary_lines)
