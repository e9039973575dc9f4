"""Writes BERT pretraining TFRecords from raw text, in parallel and streaming.

Same input format, flags and record features as google-research/bert's
`create_pretraining_data.py`, plus: `--output_shards`, `--num_workers`,
`--objective` (the paper's No-NSP and left-to-right ablations),
`--mask_token_rate` / `--random_token_rate` and `--max_ngram_size`.

The one difference in the algorithm: the random "next sentence" of an
instance comes from a document of the same chunk of `--documents_per_chunk`
documents rather than from the whole corpus, which is what lets the corpus
stream through bounded memory. Instances are shuffled within a chunk.

With `--runner`, an Apache Beam pipeline writes the same records on that
runner (docs/scaling-out.md).

Example:
  python create_pretraining_data.py --input_file=corpus/*.txt \\
    --output_file=out/pretrain.tfrecord --output_shards=8 \\
    --vocab_file=vocab.txt --num_workers=2 --dupe_factor=5
"""


from absl import flags

from data.pretraining import command_line
from data.pretraining.writer import summary_lines
from data.text.vocab import VocabError
from families.bert.pretraining.chunks import ChunkProcessor
from families.bert.pretraining.config import OBJECTIVES, MaskingOptions, PretrainingDataConfig

FLAGS = flags.FLAGS


def define_flags():
    """Its flags: google-research's, then additions."""
    command_line.define_writer_flags("Documents per unit of work; random next segments come from it.")
    flags.DEFINE_string("vocab_file", None, "The vocabulary file that the BERT model was trained on.")
    flags.DEFINE_bool("do_lower_case", True, "Lower-case the input (True for uncased models).")
    flags.DEFINE_bool("do_whole_word_mask", False, "Mask whole words rather than single word pieces.")
    flags.DEFINE_integer("max_seq_length", 128, "Maximum sequence length.")
    flags.DEFINE_integer("max_predictions_per_seq", 20, "Maximum number of masked LM predictions per sequence.")
    flags.DEFINE_integer("random_seed", 12345, "Random seed for data generation.")
    flags.DEFINE_integer("dupe_factor", 10, "Number of times to duplicate the input data (with different masks).")
    flags.DEFINE_float("masked_lm_prob", 0.15, "Masked LM probability.")
    flags.DEFINE_float("short_seq_prob", 0.1, "Probability of a shorter than maximum target length per document.")
    flags.DEFINE_enum(
        "objective",
        "mlm_nsp",
        OBJECTIVES,
        "mlm_nsp: sentence pairs, masked LM and next-sentence labels (BERT). "
        "mlm: single contiguous segments, masked LM, no next_sentence_labels (No NSP). "
        "ltr: single segments unmasked, masked_lm_* holding every "
        "position's next token, max_seq_length wide (LTR & No NSP).",
    )
    flags.DEFINE_float("mask_token_rate", 0.8, "Share of masked-LM targets replaced by [MASK].")
    flags.DEFINE_float("random_token_rate", 0.1, "Share replaced by a random token; the rest are kept.")
    flags.DEFINE_integer("max_ngram_size", 1, "Mask n-grams of up to this many whole words (needs --do_whole_word_mask).")


REQUIRED = ("input_file", "output_file", "vocab_file")
parse_flags = command_line.parse_flags  # options it does not define go to Beam with --runner


def config_from_flags():
    masking = MaskingOptions(
        max_predictions_per_seq=FLAGS.max_predictions_per_seq,
        masked_lm_prob=FLAGS.masked_lm_prob,
        mask_token_rate=FLAGS.mask_token_rate,
        random_token_rate=FLAGS.random_token_rate,
        do_whole_word_mask=FLAGS.do_whole_word_mask,
        max_ngram_size=FLAGS.max_ngram_size,
    )
    return PretrainingDataConfig(
        max_seq_length=FLAGS.max_seq_length,
        short_seq_prob=FLAGS.short_seq_prob,
        dupe_factor=FLAGS.dupe_factor,
        random_seed=FLAGS.random_seed,
        objective=FLAGS.objective,
        masking=masking,
    )


def main(argv):
    command_line.write_and_report(
        config_from_flags, FLAGS.vocab_file, FLAGS.do_lower_case, ChunkProcessor, argv,
        lambda counts: summary_lines(counts, config_from_flags()), errors=(VocabError,))
