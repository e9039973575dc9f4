"""Our pretraining instances are google-research's, instance for instance.

The original `create_training_instances` (bert-tensorflow) and ours read the
same corpus with the same seed. Our code draws its random numbers in its own
ways (`randint` from one `random()`, the truncation coins as one
`getrandbits`, masking afterwards from a NumPy generator), so the test hands
both sides a `random.Random` whose `randint` and `getrandbits` are built from
`random()` draws exactly as ours use them, and leaves masking out (it has its
own tests). Under that generator every draw of one side is a draw of the
other, so the instances must be equal token for token; and since each
replacement draw has the law of the draw it replaces, the two scripts make
the same distribution of instances under any seed.

Three corpus shapes, built from the sentences shipped in `tests/fixtures`:
one sentence a line, one paragraph a line (lines longer than a sequence,
trimmed on both sides), and short documents of one to three sentences.
"""

import collections
import os
import random

import pytest

from tests.conftest import FIXTURES
from tests.references import original_full_tokenizer

from families.bert.pretraining.chunks import ChunkProcessor
from families.bert.pretraining.config import PretrainingDataConfig
from data.pretraining.corpus_reader import ReadStats, read_documents
from families.bert.pretraining.instances import InstanceBuilder

MAX_SEQ_LENGTH = 64
SHORT_SEQ_PROB = 0.2
DUPE_FACTOR = 2
SEEDS = (1, 2, 3)


class AlignedRandom(random.Random):
    """`randint` and `getrandbits` as our instance code consumes them."""

    def randint(self, low, high):
        return low + int(self.random() * (high - low + 1))

    def getrandbits(self, count):
        return sum((self.random() < 0.5) << bit for bit in range(count))


def fixture_sentences():
    sentences = []
    for name in ("pretraining_corpus.txt", "sentences.txt"):
        with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
            sentences += [line.strip() for line in f if line.strip()]
    return sentences


def corpus_text(shape, seed=0):
    """Documents (blank-line separated) of one shape, drawn from the fixture sentences."""
    rng = random.Random(seed)
    sentences = fixture_sentences()

    def draw(count):
        return [rng.choice(sentences) for _ in range(count)]

    if shape == "sentence_per_line":
        documents = ["\n".join(draw(rng.randint(8, 30))) for _ in range(10)]
    elif shape == "paragraph_per_line":
        documents = ["\n".join(" ".join(draw(rng.randint(2, 8))) for _ in range(rng.randint(2, 6)))
                     for _ in range(10)]
    else:
        documents = ["\n".join(draw(rng.randint(1, 3))) for _ in range(40)]
    return "\n\n".join(documents) + "\n"


def original_instances(path, vocab_file, seed, monkeypatch):
    """(token ids, A length with [CLS] and [SEP], is_random_next) of the original's instances."""
    from bert import create_pretraining_data as original

    tokenizer = original_full_tokenizer(vocab_file, True)
    monkeypatch.setattr(original, "create_masked_lm_predictions",
                        lambda tokens, *unused: (tokens, [], []))
    instances = original.create_training_instances(
        [path], tokenizer, MAX_SEQ_LENGTH, DUPE_FACTOR, SHORT_SEQ_PROB, 0.15, 20, AlignedRandom(seed))
    return [(tokenizer.convert_tokens_to_ids(i.tokens), i.segment_ids.count(0), i.is_random_next)
            for i in instances]


def our_instances(path, vocab_file, seed):
    config = PretrainingDataConfig(max_seq_length=MAX_SEQ_LENGTH, short_seq_prob=SHORT_SEQ_PROB,
                                   dupe_factor=DUPE_FACTOR)
    processor = ChunkProcessor(config, vocab_file, do_lower_case=True)
    documents = processor.tokenize(list(read_documents([path], ReadStats())), collections.Counter())
    vocab = processor.tokenizer.vocab
    builder = InstanceBuilder(MAX_SEQ_LENGTH, SHORT_SEQ_PROB, True, vocab.cls_id, vocab.sep_id)
    return [(i.token_ids, i.first_segment_length, i.is_random_next)
            for i in builder.build(documents, DUPE_FACTOR, AlignedRandom(seed))]


@pytest.mark.parametrize("shape", ["sentence_per_line", "paragraph_per_line", "short_documents"])
def test_same_instances_as_the_original_for_the_same_draws(tmp_path, uncased_vocab_file, shape,
                                                           monkeypatch):
    path = tmp_path / f"{shape}.txt"
    path.write_text(corpus_text(shape), encoding="utf-8")
    seen = set()
    for seed in SEEDS:
        ours = our_instances(str(path), uncased_vocab_file, seed)
        theirs = original_instances(str(path), uncased_vocab_file, seed, monkeypatch)
        assert len(ours) == len(theirs)
        for index, (mine, original) in enumerate(zip(ours, theirs)):
            assert mine == original, f"seed {seed}, instance {index}"
        seen |= {(len(ids) == MAX_SEQ_LENGTH, random_next) for ids, _, random_next in ours}
    # Not vacuous: full and shorter instances, actual and random next segments.
    expected = {(True, True), (False, True)} | ({(True, False), (False, False)}
                                                 if shape != "short_documents" else set())
    assert expected <= seen
