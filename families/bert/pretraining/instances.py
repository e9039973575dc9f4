"""Documents of tokenized sentences -> training instances, the original
algorithm of google-research/bert on word-piece ids.

Sentence-pair instances (objective "mlm_nsp"): sentences are gathered until
they fill the target length (max_seq_length - 3, or with probability
`short_seq_prob` per document a random length from 2), split at a random
sentence into A and B; half of the time (always when there is one sentence)
B is replaced by text from a random other document and the unused sentences
are put back. The pair is trimmed one token at a time from the longer side,
at its front or back at random.

Single-segment instances (objectives "mlm" and "ltr", the paper's
No-NSP ablations): consecutive sentences fill [CLS] A [SEP] the same way.

The random documents are drawn from the list given, which the streaming
writer fills with one chunk of the corpus rather than the whole corpus; it
makes each document's instances with a generator of that document's own
(`passes`), where the original draws from one generator in corpus order
(`build`): the draws have the same law, so the instances the same
distribution.
"""

import itertools
from typing import NamedTuple

import numpy as np


class Instance(NamedTuple):
    token_ids: list  # [CLS] A [SEP] (B [SEP])
    first_segment_length: int  # tokens with segment id 0: [CLS] A [SEP]
    is_random_next: bool


class InstanceBuilder:
    """Builds instances from documents (lists of sentences, each a list of ids).

    Example:
    >>> builder = InstanceBuilder(128, 0.1, True, cls_id=101, sep_id=102)
    >>> instances = builder.build(documents, dupe_factor=2, rng=random.Random(1))
    """

    def __init__(self, max_seq_length, short_seq_prob, next_sentence_prediction, cls_id, sep_id):
        self.max_seq_length = max_seq_length
        self.short_seq_prob = short_seq_prob
        self.next_sentence_prediction = next_sentence_prediction
        self.cls_id = cls_id
        self.sep_id = sep_id
        self.short_targets = 0

    def build(self, documents, dupe_factor, rng):
        """Shuffles the documents, makes instances from each `dupe_factor`
        times (each pass draws new pairs), and shuffles the instances."""
        documents = list(documents)
        rng.shuffle(documents)
        instances = []
        for _ in range(dupe_factor):
            for index in range(len(documents)):
                instances.extend(self.from_document(documents, index, rng))
        rng.shuffle(instances)
        return instances

    def passes(self, documents, index, dupe_factor, rng):
        """The instances of `dupe_factor` passes over document `index`, in order."""
        return [instance for _ in range(dupe_factor) for instance in self.from_document(documents, index, rng)]

    def from_document(self, documents, index, rng):
        if self.next_sentence_prediction:
            return self._pairs(documents, index, rng)
        return self._single_segments(documents[index], rng)

    def _target_length(self, max_tokens, rng):
        if rng.random() < self.short_seq_prob:
            self.short_targets += 1
            return randint(rng, 2, max_tokens)
        return max_tokens

    def _pairs(self, documents, index, rng):
        document = documents[index]
        max_tokens = self.max_seq_length - 3
        target = self._target_length(max_tokens, rng)
        instances, gathered, gathered_length = [], [], 0
        i = 0
        while i < len(document):
            gathered.append(document[i])
            gathered_length += len(document[i])
            if i == len(document) - 1 or gathered_length >= target:
                a_end = randint(rng, 1, len(gathered) - 1) if len(gathered) >= 2 else 1
                tokens_a = list(itertools.chain.from_iterable(gathered[:a_end]))
                is_random_next = len(gathered) == 1 or rng.random() < 0.5
                if is_random_next:
                    tokens_b = random_continuation(documents, index, target - len(tokens_a), rng)
                    i -= len(gathered) - a_end
                else:
                    tokens_b = list(itertools.chain.from_iterable(gathered[a_end:]))
                tokens_a, tokens_b = truncate_pair(tokens_a, tokens_b, max_tokens, rng)
                instances.append(self._pack(tokens_a, tokens_b, is_random_next))
                gathered, gathered_length = [], 0
            i += 1
        return instances

    def _single_segments(self, document, rng):
        max_tokens = self.max_seq_length - 2
        target = self._target_length(max_tokens, rng)
        instances, tokens = [], []
        for i, sentence in enumerate(document):
            tokens += sentence
            if i == len(document) - 1 or len(tokens) >= target:
                tokens, _ = truncate_pair(tokens, [], max_tokens, rng)
                instances.append(self._pack(tokens, [], False))
                tokens = []
        return instances

    def _pack(self, tokens_a, tokens_b, is_random_next):
        token_ids = [self.cls_id] + tokens_a + [self.sep_id]
        first_segment_length = len(token_ids)
        if tokens_b:
            token_ids += tokens_b + [self.sep_id]
        return Instance(token_ids, first_segment_length, is_random_next)


class InstanceArrays(NamedTuple):
    input_ids: np.ndarray  # [instances, max_seq_length], 0-padded
    lengths: np.ndarray  # [instances]
    segment_ids: np.ndarray  # [instances, max_seq_length]
    is_random_next: np.ndarray  # [instances] int


def to_arrays(instances, max_seq_length):
    """Instances as padded int32 arrays."""
    count = len(instances)
    lengths = np.fromiter((len(i.token_ids) for i in instances), dtype=np.int32, count=count)
    positions = np.arange(max_seq_length, dtype=np.int32)
    in_sequence = positions < lengths[:, None]
    input_ids = np.zeros((count, max_seq_length), dtype=np.int32)
    input_ids[in_sequence] = np.fromiter(
        itertools.chain.from_iterable(i.token_ids for i in instances), dtype=np.int32, count=int(lengths.sum())
    )
    first_lengths = np.fromiter((i.first_segment_length for i in instances), dtype=np.int32, count=count)
    segment_ids = (in_sequence & (positions >= first_lengths[:, None])).astype(np.int32)
    is_random_next = np.fromiter((i.is_random_next for i in instances), dtype=np.int32, count=count)
    return InstanceArrays(input_ids, lengths, segment_ids, is_random_next)


def random_continuation(documents, index, target_length, rng):
    """Sentences from a random start in a random other document (ten tries to
    avoid this one), until `target_length` tokens are gathered."""
    for _ in range(10):
        other = randint(rng, 0, len(documents) - 1)
        if other != index:
            break
    document = documents[other]
    tokens = []
    for sentence in document[randint(rng, 0, len(document) - 1) :]:
        tokens += sentence
        if len(tokens) >= target_length:
            break
    return tokens


def randint(rng, low, high):
    """Uniform integer in [low, high] from one `rng.random()` draw, several
    times faster than `rng.randint`; the bias is below 2**-30 for the ranges
    used here."""
    return low + int(rng.random() * (high - low + 1))


def truncate_pair(tokens_a, tokens_b, max_tokens, rng):
    """Trims the pair to `max_tokens` as the original does, one token at a
    time from the longer side (B on ties), from its front or back by a coin
    flip; returns the trimmed lists.

    Which side loses each token depends only on the lengths, so the coins are
    drawn at once, bit j for the original's j-th removal (1: the front), and
    each side loses from its front as many tokens as its bits hold ones.
    """
    excess = len(tokens_a) + len(tokens_b) - max_tokens
    if excess <= 0:
        return tokens_a, tokens_b
    from_a = _removed_from_a(len(tokens_a), len(tokens_b), excess)
    fronts = rng.getrandbits(excess)
    front_a = (fronts & from_a).bit_count()
    front_b = fronts.bit_count() - front_a
    count_a = from_a.bit_count()
    return _trim(tokens_a, front_a, count_a - front_a), _trim(tokens_b, front_b, excess - count_a - front_b)


def _removed_from_a(length_a, length_b, excess):
    """Bit mask of the original loop's removals that take from A: from the
    longer side until both are equal, then B, A, B, ... (B on ties)."""
    gap = length_a - length_b
    first = min(abs(gap), excess)
    rest = excess - first
    odd_positions = ((1 << (rest - rest % 2)) - 1) // 3 << 1
    return (((1 << first) - 1) if gap > 0 else 0) | (odd_positions << first)


def _trim(tokens, front, back):
    return tokens[front : len(tokens) - back]
