"""Instance count, full-length share and random-next share of our instance
builder and of google-research's (bert-tensorflow), over many seeds, on the
first --articles WikiText articles (one sentence a line, or with
--paragraphs one paragraph a line). One seed says little: a short target
length (--short_seq_prob) applies to a whole document, so a long article
drawing one turns into many short instances.

Example:
  python benchmarks/pretraining_instances_over_seeds.py --seeds=120 --articles=40 --dupe_factor=2 \\
    --max_seq_length=128 --short_seq_prob=0.1
"""

import collections
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402
from absl import app, flags  # noqa: E402

from bert import create_pretraining_data as original  # noqa: E402  (defines --max_seq_length ...)
from bert import tokenization  # noqa: E402

from benchmarks.wikitext_documents import articles  # noqa: E402
from families.bert.pretraining.instances import InstanceBuilder  # noqa: E402
from data.text.vocab import Vocab  # noqa: E402

SHARED = os.path.join(os.path.dirname(ROOT), "shared", "data")

flags.DEFINE_integer("seeds", 120, "Seeds per program.")
flags.DEFINE_integer("articles", 40, "Articles of the corpus to use.")
flags.DEFINE_bool("paragraphs", False, "One paragraph a line instead of one sentence a line.")
flags.DEFINE_string("corpus", os.path.join(SHARED, "corpus", "wikitext2_test.txt"), "WikiText file.")
FLAGS = flags.FLAGS


def documents(tokenizer):
    """Each article's lines as word-piece lists, as both programs read them."""
    split = _paragraph_articles if FLAGS.paragraphs else articles
    with open(FLAGS.corpus, encoding="utf-8") as f:
        chosen = list(split(f))[: FLAGS.articles]
    tokenized = [[t for t in map(tokenizer.tokenize, article) if t] for article in chosen]
    return [d for d in tokenized if d]


def _paragraph_articles(lines):
    """Lists of paragraphs, one list per article."""
    article = []
    for line in lines:
        if line.startswith(" = ") and not line.startswith(" = = "):
            if article:
                yield article
            article = []
        elif line.strip() and not line.lstrip().startswith("="):
            article.append(line.strip())
    if article:
        yield article


def original_instances(docs, vocab_words, seed):
    """`create_training_instances` after its reading step, masking included."""
    rng = random.Random(seed)
    docs = list(docs)
    rng.shuffle(docs)
    instances = []
    for _ in range(FLAGS.dupe_factor):
        for index in range(len(docs)):
            instances.extend(original.create_instances_from_document(
                docs, index, FLAGS.max_seq_length, FLAGS.short_seq_prob, FLAGS.masked_lm_prob,
                FLAGS.max_predictions_per_seq, vocab_words, rng))
    rng.shuffle(instances)
    return [(len(i.tokens), i.is_random_next) for i in instances]


def our_instances(docs, vocab, seed):
    """Our builder seeded as the writer seeds a chunk."""
    rng = random.Random(int(np.random.SeedSequence([seed, 0]).generate_state(1)[0]))
    builder = InstanceBuilder(FLAGS.max_seq_length, FLAGS.short_seq_prob, True, vocab.cls_id, vocab.sep_id)
    return [(len(i.token_ids), i.is_random_next) for i in builder.build(docs, FLAGS.dupe_factor, rng)]


def main(argv):
    del argv
    vocab_file = os.path.join(SHARED, "vocab", "bert_uncased_vocab.txt")
    if not os.path.exists(vocab_file) or not os.path.exists(FLAGS.corpus):
        sys.exit(f"shared data not available: {SHARED}")
    tokenizer = tokenization.FullTokenizer(vocab_file=vocab_file, do_lower_case=True)
    vocab = Vocab.from_file(vocab_file)
    word_docs = documents(tokenizer)
    id_docs = [[tokenizer.convert_tokens_to_ids(s) for s in d] for d in word_docs]
    figures = collections.defaultdict(list)
    for seed in range(FLAGS.seeds):
        for name, rows in (("original", original_instances(word_docs, list(tokenizer.vocab), seed)),
                           ("ours", our_instances(id_docs, vocab, seed))):
            lengths, random_next = np.array(rows).T
            figures[name].append((len(rows), 100 * np.mean(lengths == FLAGS.max_seq_length),
                                  100 * np.mean(random_next)))
    shape = "paragraph" if FLAGS.paragraphs else "sentence"
    print(f"{len(word_docs)} articles, one {shape} a line, {sum(map(len, word_docs))} lines; "
          f"{FLAGS.seeds} seeds, mean ± sd; dupe_factor {FLAGS.dupe_factor}, max_seq_length "
          f"{FLAGS.max_seq_length}, short_seq_prob {FLAGS.short_seq_prob}")
    for name, rows in figures.items():
        mean, sd = np.mean(rows, axis=0), np.std(rows, axis=0, ddof=1)
        print(f"  {name:>8}: instances {mean[0]:.0f} ± {sd[0]:.0f}, full-length {mean[1]:.1f} ± {sd[1]:.1f}%, "
              f"random-next {mean[2]:.1f} ± {sd[2]:.1f}%")


if __name__ == "__main__":
    app.run(main)
