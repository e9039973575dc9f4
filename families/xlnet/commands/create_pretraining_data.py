"""Writes XLNet pretraining TFRecords from raw text, in parallel and streaming.

Input as the BERT writer's (one sentence per line, a blank line between
documents); records and the algorithm as the original XLNet
`data_utils.py` (features `input is_masked target seg_id label`, its flag
names and defaults). Differences: the corpus streams through in chunks of
`--documents_per_chunk` documents, each chunk its own token stream (the
original makes one stream per input file and holds it in memory); an
`<eod>` closes every document, the last one of a file too; output goes to
`--output_file` (`--output_shards`), whole chunks per shard, rather than
file names that encode the settings. Training reads them with
`run_pretraining.py --model=xlnet`, which draws the permutations. With
`--runner`, an Apache Beam pipeline writes the same records on that runner
(docs/scaling-out.md); there a line that is not valid UTF-8 is skipped and
listed rather than stopping the job.

Example:
  python create_pretraining_data.py --model=xlnet --input_file=corpus/*.txt \\
    --output_file=out/xlnet.tfrecord --output_shards=4 --sp_path=spiece.model \\
    --seq_len=512 --reuse_len=256 --bsz_per_host=32 --num_predict=85 --num_workers=2
"""


from absl import flags

from data.pretraining import command_line
from families.xlnet.pretraining.chunks import XLNetChunkProcessor, summary_lines
from families.xlnet.pretraining.config import XLNetDataConfig

FLAGS = flags.FLAGS


def define_flags():
    """Its flags: the original `data_utils.py`'s, names and defaults."""
    command_line.define_writer_flags("Documents per token stream (unit of work).")
    flags.DEFINE_string("sp_path", None, "The SentencePiece model (spiece.model, build_vocab.py --model=xlnet).")
    flags.DEFINE_bool("uncased", False, "Lower-case the input.")
    flags.DEFINE_integer("seq_len", 512, "Sequence length.")
    flags.DEFINE_integer("reuse_len", 256, "Tokens per record that continue the previous record of "
                         "its row (cached as memory). Could be half of seq_len.")
    flags.DEFINE_integer("bsz_per_host", 32, "Rows of the token stream: the training batch size that "
                         "memory and bi_data need.")
    flags.DEFINE_integer("num_core_per_host", 1, "Slices of a batch (replicas x grad_accum_steps in "
                         "training): with bi_data each slice is forward rows, then them backwards.")
    flags.DEFINE_bool("bi_data", True, "Half of each slice's rows read backwards.")
    flags.DEFINE_integer("num_predict", 85, "Targets per record.")
    flags.DEFINE_integer("mask_alpha", 6, "How many tokens form a group.")
    flags.DEFINE_integer("mask_beta", 1, "How many tokens to mask within each group.")
    flags.DEFINE_bool("use_eod", True, "Append <eod> at the end of each document.")
    flags.DEFINE_integer("random_seed", 12345, "Random seed for data generation.")


REQUIRED = ("input_file", "output_file", "sp_path")
parse_flags = command_line.parse_flags  # options it does not define go to Beam with --runner


def config_from_flags():
    return XLNetDataConfig(
        seq_len=FLAGS.seq_len, reuse_len=FLAGS.reuse_len, bsz_per_host=FLAGS.bsz_per_host,
        num_core_per_host=FLAGS.num_core_per_host,
        bi_data=FLAGS.bi_data, num_predict=FLAGS.num_predict, mask_alpha=FLAGS.mask_alpha,
        mask_beta=FLAGS.mask_beta, use_eod=FLAGS.use_eod, random_seed=FLAGS.random_seed)


def main(argv):
    command_line.write_and_report(config_from_flags, FLAGS.sp_path, FLAGS.uncased, XLNetChunkProcessor, argv,
                                  summary_lines)
