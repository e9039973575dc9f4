"""Checks that our pretraining data follows the original algorithm, on
../shared/data/corpus: ours and google-research's own
`bert.create_pretraining_data` (bert-tensorflow) run on the same input, vocab
and flags (the original module's own flags: --dupe_factor, --max_seq_length,
--max_predictions_per_seq, --random_seed, --masked_lm_prob, --short_seq_prob),
and the statistics of both outputs are compared:

- LM targets: ~masked_lm_prob of tokens, exactly round(prob * length) per sequence
  (at least 1, at most max_predictions_per_seq);
- replacements: 80% [MASK], 10% kept, 10% random, each within 1 point;
- next sentence: random share within 2 points of the original's;
- length distribution (short sequences with short_seq_prob) close to the original's.

Example:
  python benchmarks/pretraining_data_statistics.py --dupe_factor=2
"""

import os
import random
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402
from absl import app, flags  # noqa: E402

from bert import create_pretraining_data as original  # noqa: E402  (defines the shared flags)
from bert import tokenization  # noqa: E402

from data.pretraining import features as F  # noqa: E402
from families.bert.pretraining.chunks import ChunkProcessor  # noqa: E402
from families.bert.pretraining.config import MaskingOptions, PretrainingDataConfig  # noqa: E402
from data.pretraining.corpus_reader import expand_input_files  # noqa: E402
from data.pretraining.record_statistics import read_examples, statistics  # noqa: E402
from data.pretraining.writer import summary_lines, write_pretraining_data  # noqa: E402
from data.text.vocab import Vocab  # noqa: E402

SHARED = os.path.join(os.path.dirname(ROOT), "shared", "data")

flags.DEFINE_integer("num_workers", 2, "Worker processes for ours.")
FLAGS = flags.FLAGS


def run_original(files, vocab_file, output):
    tokenizer = tokenization.FullTokenizer(vocab_file=vocab_file, do_lower_case=True)
    instances = original.create_training_instances(
        files,
        tokenizer,
        FLAGS.max_seq_length,
        FLAGS.dupe_factor,
        FLAGS.short_seq_prob,
        FLAGS.masked_lm_prob,
        FLAGS.max_predictions_per_seq,
        random.Random(FLAGS.random_seed),
    )
    original.write_instance_to_example_files(
        instances, tokenizer, FLAGS.max_seq_length, FLAGS.max_predictions_per_seq, [output]
    )


def expected_target_share(examples):
    lengths = examples[F.INPUT_MASK].sum(axis=1)
    budget = np.clip(np.rint(lengths * FLAGS.masked_lm_prob), 1, FLAGS.max_predictions_per_seq)
    return budget.sum() / lengths.sum()


def main(argv):
    del argv
    corpus = os.path.join(SHARED, "corpus", "*.txt")
    vocab_file = os.path.join(SHARED, "vocab", "bert_uncased_vocab.txt")
    if not os.path.exists(vocab_file):
        sys.exit(f"shared data not available: {SHARED}")
    files = expand_input_files(corpus)
    mask_id = Vocab.from_file(vocab_file).mask_id
    config = PretrainingDataConfig(
        max_seq_length=FLAGS.max_seq_length,
        short_seq_prob=FLAGS.short_seq_prob,
        dupe_factor=FLAGS.dupe_factor,
        random_seed=FLAGS.random_seed,
        masking=MaskingOptions(max_predictions_per_seq=FLAGS.max_predictions_per_seq, masked_lm_prob=FLAGS.masked_lm_prob),
    )
    with tempfile.TemporaryDirectory() as work:
        start = time.time()
        counts = write_pretraining_data(
            files, [os.path.join(work, "ours")], vocab_file, config, num_workers=FLAGS.num_workers,
            processor_class=ChunkProcessor)
        print(f"ours: {time.time() - start:.0f} s", flush=True)
        for line in summary_lines(counts, config):
            print("  " + line)
        start = time.time()
        run_original(files, vocab_file, os.path.join(work, "original"))
        print(f"original: {time.time() - start:.0f} s", flush=True)
        ours = read_examples([os.path.join(work, "ours")])
        theirs = read_examples([os.path.join(work, "original")])

    stats = {
        name: statistics(examples, mask_id, FLAGS.max_seq_length) for name, examples in (("ours", ours), ("original", theirs))
    }
    print(f"{'':>26}{'ours':>12}{'original':>12}")
    for key in stats["ours"]:
        print(f"{key:>26}" + "".join(f"{stats[name][key]:>12.4f}" for name in ("ours", "original")))
    short_share = counts["short_targets"] / (counts["documents"] * FLAGS.dupe_factor)
    checks = [
        ("targets = round(masked_lm_prob * length), capped", abs(stats["ours"]["target_share_of_tokens"] - expected_target_share(ours)) < 1e-12),
        ("[MASK] 80% within 1 point", abs(stats["ours"]["mask_share"] - 0.8) <= 0.01),
        ("kept 10% within 1 point", abs(stats["ours"]["kept_share"] - 0.1) <= 0.01),
        ("random 10% within 1 point", abs(stats["ours"]["random_share"] - 0.1) <= 0.01),
        (
            "random next within 2 points of the original",
            abs(stats["ours"]["random_next_share"] - stats["original"]["random_next_share"]) <= 0.02,
        ),
        (
            f"short target lengths in {short_share:.1%} of document passes (short_seq_prob {FLAGS.short_seq_prob:.0%})",
            abs(short_share - FLAGS.short_seq_prob) <= 0.01,
        ),
        (
            "share of sequences under half length within 2 points of the original",
            abs(stats["ours"]["under_half_length_share"] - stats["original"]["under_half_length_share"]) <= 0.02,
        ),
    ]
    for name, passed in checks:
        print(f"{'PASS' if passed else 'FAIL'}: {name}")
    sys.exit(0 if all(passed for _, passed in checks) else 1)


if __name__ == "__main__":
    app.run(main)
