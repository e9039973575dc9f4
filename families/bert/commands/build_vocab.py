"""Learns a WordPiece vocabulary from a text corpus, in the released BERT
layout: [PAD] = 0, [unused0] .. [unused98], [UNK] = 100, [CLS], [SEP],
[MASK], then the remaining [unusedN], then single characters and learned
pieces ('##' marks a continuation).

Words are split by our Python basic tokenizer (the one `FullTokenizer` and
the in-graph tokenizer reproduce), so the vocabulary fits the way text is
later tokenized; tensorflow-text's WordPiece learner (the one behind its
`bert_vocab_from_dataset`) learns the pieces from their counts. The learner can return a few more tokens than
asked for; the least frequent learned pieces are then left out.

Example:
  python build_vocab.py --input_file='corpus/*.txt' --output_file=vocab.txt \\
    --vocab_size=30522 --do_lower_case=true
"""

import collections
import importlib.util
import os
import sys

from absl import flags, logging

from data.pretraining.corpus_reader import CorpusError, ReadStats, decode_line, expand_input_files
from data.text.cached_tokenizer import ChunkCache
from data.text.tokenization import BasicTokenizer
from utils.files import atomic_write_text

UNUSED_BEFORE_UNK = 99  # [unused0] .. [unused98] sit between [PAD] and [UNK]


def reserved_tokens(num_unused=994):
    """Special and unused tokens in the released order."""
    unused = [f"[unused{i}]" for i in range(num_unused)]
    return ["[PAD]"] + unused[:UNUSED_BEFORE_UNK] + ["[UNK]", "[CLS]", "[SEP]", "[MASK]"] + unused[UNUSED_BEFORE_UNK:]


def word_counts(files, do_lower_case, stats):
    """{basic-tokenizer word: count} over the corpus, in order of first occurrence."""
    words_of = ChunkCache(BasicTokenizer(do_lower_case).tokenize)
    counts = collections.Counter()
    for path in files:
        with open(path, "rb") as f:
            for line_no, raw in enumerate(f, start=1):
                counts.update(words_of(decode_line(raw, path, line_no, stats)))
        stats.files += 1
    return counts


def wordpiece_learner():
    """tensorflow-text's WordPiece learner, a pure-Python module, loaded on its own:
    importing it through its package loads TensorFlow, 6 of the 28 s this script
    took on the main job's corpus (2-core AMD EPYC)."""
    package = importlib.util.find_spec("tensorflow_text")
    path = os.path.join(package.submodule_search_locations[0], "tools", "wordpiece_vocab",
                        "wordpiece_tokenizer_learner_lib.py")
    spec = importlib.util.spec_from_file_location("wordpiece_tokenizer_learner_lib", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def learn_vocabulary(input_files, vocab_size=30522, do_lower_case=True, num_unused=994, **learn_params):
    """The vocabulary as a list of tokens (id = position).

    `learn_params` go to tensorflow-text's `wordpiece_tokenizer_learner_lib.learn`
    (e.g. lower_thresh, max_unique_chars, max_token_length).
    """
    reserved = reserved_tokens(num_unused)
    if vocab_size <= len(reserved):
        raise ValueError(f"vocab_size {vocab_size} leaves no room after {len(reserved)} reserved tokens")
    files = expand_input_files(input_files)
    stats = ReadStats()
    counts = word_counts(files, do_lower_case, stats)
    if not counts:
        raise CorpusError(f"no words in {', '.join(files)}")
    vocab = wordpiece_learner().learn(counts, vocab_size, reserved, **learn_params)
    if stats.invalid_utf8_lines:
        logging.warning("%d lines had invalid UTF-8 (bad bytes replaced)", stats.invalid_utf8_lines)
    return vocab[:vocab_size]


FLAGS = flags.FLAGS


def define_flags():
    """Defined only when run as a script: tests import this module beside others
    (the original create_pretraining_data) that define the same flag names."""
    flags.DEFINE_string("input_file", None, "Text file(s) or glob(s), comma-separated.")
    flags.DEFINE_string("output_file", None, "Where to write vocab.txt.")
    flags.DEFINE_integer("vocab_size", 30522, "Number of tokens, reserved ones included (at most).")
    flags.DEFINE_bool("do_lower_case", True, "Learn an uncased vocabulary (lower-cased, accents stripped).")
    flags.DEFINE_integer("num_unused", 994, "Number of [unusedN] tokens (the released vocabularies have 994).")
    flags.DEFINE_integer("lower_thresh", 10, "Lowest count a learned piece may have (smaller corpora need less).")
    flags.DEFINE_integer("max_unique_chars", 1000, "Largest alphabet; words with rarer characters are not learned from.")


REQUIRED = ("input_file", "output_file")


def main(argv):
    del argv
    try:
        vocab = learn_vocabulary(
            FLAGS.input_file,
            FLAGS.vocab_size,
            FLAGS.do_lower_case,
            FLAGS.num_unused,
            lower_thresh=FLAGS.lower_thresh,
            max_unique_chars=FLAGS.max_unique_chars,
        )
    except (CorpusError, ValueError) as e:
        sys.exit(f"error: {e}")
    atomic_write_text(FLAGS.output_file, "".join(token + "\n" for token in vocab))
    logging.info("wrote %d tokens to %s", len(vocab), FLAGS.output_file)
