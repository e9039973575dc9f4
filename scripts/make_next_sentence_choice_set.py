"""Builds a small multiple-choice set a BERT can learn, for trying run_swag.py
where SWAG itself is not at hand: given one sentence of an article, pick the
sentence that really follows it among `num_choices - 1` random sentences from
other articles, or with `--distractors=same_article` from the context's own
article (neither the context nor the sentences either side of it), so that
topic and genre, which set articles apart, cannot tell the true one.

Input is wikitext-style text: ` = Title = ` lines start an article, other
heading lines (` = = Section = = `) are dropped, every other non-blank line is
a paragraph; wikitext's ` @-@ `, ` @,@ `, ` @.@ ` are joined back. Context and
true next sentence come from the same paragraph. Articles are divided between
train and dev (`--dev_fraction` of them to dev), so no dev example shares an
article with a train example.

Writes `train.jsonl` and `dev.jsonl` in `--output_dir` (the JSON-lines layout
of tasks/multiple_choice/swag_reader.py):

    python -m scripts.make_next_sentence_choice_set \\
        --input_files=../shared/data/corpus/wikitext2_valid.txt,../shared/data/corpus/wikitext2_test.txt \\
        --output_dir=/tmp/next_sentence_choice --num_train=2000 --num_dev=500
"""

import argparse
import json
import os
import random
import re

from utils.files import atomic_output

_TITLE = re.compile(r"^ ?= [^=].* = ?$")
_HEADING = re.compile(r"^ ?=.*= ?$")
_WIKITEXT_JOINS = ((" @-@ ", "-"), (" @,@ ", ","), (" @.@ ", "."))
_SENTENCE_END = re.compile(r"(?<= [.!?]) (?=\S)")


def read_articles(lines):
    """Articles as lists of paragraphs, each a list of sentences."""
    articles = []
    for line in lines:
        if _TITLE.match(line.rstrip("\n")):
            articles.append([])
        elif line.strip() and not _HEADING.match(line.rstrip("\n")) and articles:
            text = line.strip()
            for joined, replacement in _WIKITEXT_JOINS:
                text = text.replace(joined, replacement)
            articles[-1].append(_SENTENCE_END.split(text))
    return [article for article in articles if article]


def _long_enough(sentence, min_words):
    return len(sentence.split()) >= min_words


def sentence_pairs(article, min_words):
    """(sentence, the sentence after it) within each paragraph."""
    return [(first, second) for paragraph in article
            for first, second in zip(paragraph, paragraph[1:])
            if _long_enough(first, min_words) and _long_enough(second, min_words)]


def same_article_pairs(article, min_words):
    """(sentence, the sentence after it, the article's sentences that may stand
    in for the latter) within each paragraph: the others of `min_words` words
    or more, without the sentence itself, the one after it or the one before
    it (neighbours that follow on too well to be wrong), once each."""
    sentences = [sentence for paragraph in article for sentence in paragraph]
    starts = [0]
    for paragraph in article:
        starts.append(starts[-1] + len(paragraph))
    for start, paragraph in zip(starts, article):
        for k in range(start, start + len(paragraph) - 1):
            context, following = sentences[k], sentences[k + 1]
            if _long_enough(context, min_words) and _long_enough(following, min_words):
                others = dict.fromkeys(s for j, s in enumerate(sentences)
                                       if abs(j - k) > 1 and _long_enough(s, min_words)
                                       and s not in (context, following))
                yield context, following, list(others)


def make_examples(articles, count, num_choices, min_words, rng, id_prefix, same_article=False):
    """`count` examples: context, the true next sentence among `num_choices`
    endings (the others from other articles of `articles`, or with
    `same_article` from its own: `same_article_pairs`), its index as label."""
    if same_article:
        return _same_article_examples(articles, count, num_choices, min_words, rng, id_prefix)
    pairs = [(i, pair) for i, article in enumerate(articles)
             for pair in sentence_pairs(article, min_words)]
    pool = [(i, sentence) for i, article in enumerate(articles)
            for paragraph in article for sentence in paragraph
            if _long_enough(sentence, min_words)]
    if len(pairs) < count:
        raise ValueError(f"only {len(pairs)} sentence pairs for {count} {id_prefix} examples")
    examples = []
    for n, (article, (context, following)) in enumerate(rng.sample(pairs, count)):
        distractors = []
        while len(distractors) < num_choices - 1:
            other, sentence = rng.choice(pool)
            if other != article and sentence not in distractors:
                distractors.append(sentence)
        examples.append(_example(f"{id_prefix}-{n}", context, following, distractors, rng))
    return examples


def _same_article_examples(articles, count, num_choices, min_words, rng, id_prefix):
    pairs = [pair for article in articles for pair in same_article_pairs(article, min_words)
             if len(pair[2]) >= num_choices - 1]
    if len(pairs) < count:
        raise ValueError(f"only {len(pairs)} sentence pairs with {num_choices - 1} other sentences of their "
                         f"article for {count} {id_prefix} examples")
    return [_example(f"{id_prefix}-{n}", context, following, rng.sample(others, num_choices - 1), rng)
            for n, (context, following, others) in enumerate(rng.sample(pairs, count))]


def _example(example_id, context, following, distractors, rng):
    """The true next sentence at a uniformly drawn place among the distractors."""
    label = rng.randrange(len(distractors) + 1)
    endings = distractors[:label] + [following] + distractors[label:]
    return {"id": example_id, "context": context, "endings": endings, "label": label}


def split_articles(articles, dev_fraction, rng):
    """(train articles, dev articles): a shuffled `dev_fraction` of the articles
    (at least one) goes to dev."""
    if len(articles) < 2:
        raise ValueError(f"need at least 2 articles to split, found {len(articles)}")
    articles = list(articles)
    rng.shuffle(articles)
    num_dev = min(max(1, round(dev_fraction * len(articles))), len(articles) - 1)
    return articles[num_dev:], articles[:num_dev]


def write_jsonl(path, records):
    with atomic_output(path) as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input_files", required=True, help="Comma-separated wikitext files.")
    parser.add_argument("--output_dir", required=True)
    parser.add_argument("--num_train", type=int, default=2000)
    parser.add_argument("--num_dev", type=int, default=500)
    parser.add_argument("--num_choices", type=int, default=4)
    parser.add_argument("--dev_fraction", type=float, default=0.2,
                        help="Share of the articles that dev examples are drawn from.")
    parser.add_argument("--min_words", type=int, default=5,
                        help="Sentences with fewer words are not used.")
    parser.add_argument("--distractors", choices=("other_articles", "same_article"), default="other_articles",
                        help="Where the wrong endings come from: other articles, or the context's own article.")
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args(argv)
    if args.num_choices < 2:
        parser.error("--num_choices must be at least 2")

    articles = []
    for path in args.input_files.split(","):
        with open(path, encoding="utf-8") as f:
            articles.extend(read_articles(f))
    rng = random.Random(args.seed)
    train_articles, dev_articles = split_articles(articles, args.dev_fraction, rng)
    for name, part, count in (("train", train_articles, args.num_train),
                              ("dev", dev_articles, args.num_dev)):
        examples = make_examples(part, count, args.num_choices, args.min_words, rng, name,
                                 same_article=args.distractors == "same_article")
        write_jsonl(os.path.join(args.output_dir, f"{name}.jsonl"), examples)
        print(f"{name}: {len(examples)} examples from {len(part)} articles")


if __name__ == "__main__":
    main()
