"""Entity-level precision, recall and F1 exactly as conlleval scores them.

Chunks come from seqeval's default (conlleval-compatible) chunker, run per
sentence so no chunk crosses a sentence break. It follows conlleval's rules,
so IOB1, IOB2 and a mix of both give the same chunks, and an `I-X` after `O`
or after another type opens a chunk. (seqeval's strict IOB2 mode differs
there: it drops such chunks.) A predicted chunk is correct when a gold chunk
has the same type, start and end. `tests/tasks/tagging/test_metrics.py` compares
`conlleval_report` with conlleval's recorded output on tricky fixtures.

Example:
>>> scores = entity_scores([["B-PER", "I-PER", "O"]], [["B-PER", "I-PER", "O"]])
>>> scores.f1, scores.per_type["PER"].f1
(1.0, 1.0)
"""

import collections
import dataclasses

from seqeval.metrics.sequence_labeling import get_entities


@dataclasses.dataclass(frozen=True)
class ChunkCounts:
    """Gold, predicted ("found") and correct chunk counts, and the scores they give."""

    gold: int = 0
    found: int = 0
    correct: int = 0

    @property
    def precision(self):
        return self.correct / self.found if self.found else 0.0

    @property
    def recall(self):
        return self.correct / self.gold if self.gold else 0.0

    @property
    def f1(self):
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclasses.dataclass(frozen=True)
class EntityScores(ChunkCounts):
    """Overall counts plus `per_type` counts and token accuracy (conlleval's "accuracy")."""

    per_type: dict = dataclasses.field(default_factory=dict)
    tokens: int = 0
    correct_tags: int = 0

    @property
    def accuracy(self):
        return self.correct_tags / self.tokens if self.tokens else 0.0

    def as_dict(self):
        """Flat metrics for logs and eval_results.txt: overall (and token
        accuracy), then `<TYPE>_f1` etc."""
        out = {"precision": self.precision, "recall": self.recall, "f1": self.f1,
               "accuracy": self.accuracy}
        for chunk_type, counts in sorted(self.per_type.items()):
            out.update({f"{chunk_type}_precision": counts.precision,
                        f"{chunk_type}_recall": counts.recall, f"{chunk_type}_f1": counts.f1})
        return out


def _chunks(tags):
    return {(chunk_type, start, end) for chunk_type, start, end in get_entities(list(tags))}


def tag_counts(gold_sequences, predicted_sequences):
    """(words, words tagged as gold) over sentences of tags, gold and predicted aligned."""
    if len(gold_sequences) != len(predicted_sequences):
        raise ValueError(f"{len(gold_sequences)} gold sentences but "
                         f"{len(predicted_sequences)} predicted")
    tokens = correct = 0
    for i, (gold, predicted) in enumerate(zip(gold_sequences, predicted_sequences)):
        if len(gold) != len(predicted):
            raise ValueError(f"sentence {i}: {len(gold)} gold tags but {len(predicted)} predicted")
        tokens += len(gold)
        correct += sum(g == p for g, p in zip(gold, predicted))
    return tokens, correct


def token_accuracy(gold_sequences, predicted_sequences):
    """The share of words tagged as gold: the score of a plain tag set (part of speech)."""
    tokens, correct = tag_counts(gold_sequences, predicted_sequences)
    return correct / tokens if tokens else 0.0


def entity_scores(gold_sequences, predicted_sequences):
    """`EntityScores` over sentences of tags (lists of str), gold and predicted aligned."""
    tokens, correct_tags = tag_counts(gold_sequences, predicted_sequences)
    counts = collections.defaultdict(collections.Counter)
    for gold, predicted in zip(gold_sequences, predicted_sequences):
        gold_chunks, found_chunks = _chunks(gold), _chunks(predicted)
        for chunks, key in ((gold_chunks, "gold"), (found_chunks, "found"),
                            (gold_chunks & found_chunks, "correct")):
            for chunk_type, _, _ in chunks:
                counts[chunk_type][key] += 1
    per_type = {t: ChunkCounts(c["gold"], c["found"], c["correct"]) for t, c in counts.items()}
    return EntityScores(
        gold=sum(c.gold for c in per_type.values()),
        found=sum(c.found for c in per_type.values()),
        correct=sum(c.correct for c in per_type.values()),
        per_type=per_type, tokens=tokens, correct_tags=correct_tags)


def _percentages(c):
    """P, R, F1 in percent, computed in conlleval's order so the rounding matches."""
    precision = 100 * c.correct / c.found if c.found else 0.0
    recall = 100 * c.correct / c.gold if c.gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return f"precision: {precision:6.2f}%; recall: {recall:6.2f}%; FB1: {f1:6.2f}"


def conlleval_report(scores):
    """The text conlleval prints for these scores, line for line."""
    lines = [f"processed {scores.tokens} tokens with {scores.gold} phrases; "
             f"found: {scores.found} phrases; correct: {scores.correct}."]
    if scores.tokens:
        accuracy = 100 * scores.correct_tags / scores.tokens
        lines.append(f"accuracy: {accuracy:6.2f}%; {_percentages(scores)}")
    for chunk_type, counts in sorted(scores.per_type.items()):
        lines.append(f"{chunk_type:>17}: {_percentages(counts)}  {counts.found}")
    return "\n".join(lines) + "\n"
