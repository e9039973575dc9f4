"""Start/end logits of every window -> answer texts, as the original `run_squad.py`.

Per example: in every window, the `n_best_size` best start and end indices
are paired; a pair is a candidate when both ends are context pieces, the
window is the max-context one for the start piece, end >= start and the span
has at most `max_answer_length` pieces. Candidates are ranked by
start + end logit; the first `n_best_size` distinct texts form the n-best
list, with softmax probabilities over it. For SQuAD v2.0 the null answer
("", scored by the [CLS] logits of the window where they are smallest) joins
the ranking, and the question is answered "" when
`null score - best non-null score > null_score_diff_threshold`.

A span's text is mapped back from word pieces to the context as the
original's `get_final_text`: the pieces' text is located inside the basic
tokenization of the words the span covers, and the characters it covers there
are cut from those words (so "Steve Smith's" gives "Steve Smith", not
"steve smith"). One difference that leaves the official EM/F1 unchanged: the
text is cut from the context itself, so an answer across a line break keeps
it ("New\\nYork") where the original joins words with one space; every
prediction is a substring of its context.

Choices where the original has none: a question with no candidate at all
(empty context, or an untrained model whose best ends all precede its best
starts) is answered "" (the original writes the placeholder "empty"); in v2.0
its null odds are then the null score itself.

The per-window rules (`best_indexes`, `window_candidates`) and the
per-example ranking (`rank_candidates`, `softmax`) are pure functions over
plain lists; a serving graph that reproduces this post-processing follows them.
"""

import dataclasses
import json
import math
import os

import numpy as np

from data.text.tokenization import BasicTokenizer
from utils.files import atomic_write_text

PREDICTIONS_FILE = "predictions.json"
NBEST_FILE = "nbest_predictions.json"
NULL_ODDS_FILE = "null_odds.json"


@dataclasses.dataclass(frozen=True)
class PostprocessConfig:
    """The original flags that shape predictions."""

    n_best_size: int = 20
    max_answer_length: int = 30
    do_lower_case: bool = True
    version_2_with_negative: bool = False
    null_score_diff_threshold: float = 0.0

    def __post_init__(self):
        if self.n_best_size < 1 or self.max_answer_length < 1:
            raise ValueError(f"n_best_size and max_answer_length must be >= 1, got "
                             f"{self.n_best_size} and {self.max_answer_length}")


@dataclasses.dataclass(frozen=True)
class Candidate:
    """A span of window `feature_index`; start_index 0 ([CLS]) is the null answer."""

    feature_index: int
    start_index: int
    end_index: int
    start_logit: float
    end_logit: float

    @property
    def score(self):
        return self.start_logit + self.end_logit

    @property
    def is_null(self):
        return self.start_index == 0


@dataclasses.dataclass
class SquadPredictions:
    """What is written: `predictions` {id: text}, `nbest` {id: [{text,
    probability, start_logit, end_logit}]}, and for v2.0 `null_odds` {id:
    null score - best non-null score}."""

    predictions: dict
    nbest: dict
    null_odds: dict = None


def best_indexes(logits, n_best_size):
    """Indices of the `n_best_size` largest logits, largest first; on ties the
    lower index comes first (a stable sort, like `tf.math.top_k`)."""
    order = np.argsort(-np.asarray(logits, dtype=np.float64), kind="stable")
    return order[:n_best_size].tolist()


def window_candidates(feature_index, start_logits, end_logits, token_to_orig_map,
                      token_is_max_context, n_best_size, max_answer_length):
    """Non-null candidates of one window, in the original's pairing order.

    `token_to_orig_map` and `token_is_max_context` are the window's maps from
    position to context word and to "scored in this window" (`SquadFeature`);
    positions outside them (question, specials, padding) never start or end
    an answer.
    """
    candidates = []
    for start in best_indexes(start_logits, n_best_size):
        if start not in token_to_orig_map or not token_is_max_context.get(start, False):
            continue
        for end in best_indexes(end_logits, n_best_size):
            if end not in token_to_orig_map or end < start:
                continue
            if end - start + 1 > max_answer_length:
                continue
            candidates.append(Candidate(feature_index, start, end, float(start_logits[start]),
                                        float(end_logits[end])))
    return candidates


def null_candidate(windows):
    """The null answer: [CLS] start + end logit of the window where that sum is
    smallest (the first such window on ties). `windows` is a list of
    (start_logits, end_logits)."""
    best = None
    for index, (start_logits, end_logits) in enumerate(windows):
        candidate = Candidate(index, 0, 0, float(start_logits[0]), float(end_logits[0]))
        if best is None or candidate.score < best.score:
            best = candidate
    return best


def rank_candidates(candidates, n_best_size, text_of):
    """The n-best list: candidates by descending score (stable), keeping the
    first of each distinct text (the null answer, text "", is always kept), at
    most `n_best_size`. Returns [(text, candidate)]; `text_of(candidate)` gives
    the text of a non-null candidate that decides duplicates."""
    ranked, seen = [], set()
    for candidate in sorted(candidates, key=lambda c: c.score, reverse=True):
        if len(ranked) >= n_best_size:
            break
        text = "" if candidate.is_null else text_of(candidate)
        if text in seen and not candidate.is_null:
            continue
        seen.add(text)
        ranked.append((text, candidate))
    return ranked


def softmax(scores):
    """Probabilities of a list of scores, shifted by the max for stability."""
    if not scores:
        return []
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    total = sum(exps)
    return [e / total for e in exps]


def piece_text(pieces):
    """Word pieces back to words: "new ##ton 's" -> "newton 's"."""
    text = " ".join(pieces).replace(" ##", "").replace("##", "")
    return " ".join(text.strip().split())


def final_text_span(pred_text, orig_text, do_lower_case, tok_text=None):
    """Character span [start, end) of `orig_text` that `pred_text` covers: the
    original `get_final_text`, returning offsets rather than the text.

    `pred_text` comes from word pieces (lower-cased, accents stripped,
    punctuation split); it is found in `tok_text`, by default the basic
    tokenization of `orig_text` (a family whose pieces are not WordPiece's
    gives its own), and mapped back through the non-space characters both
    share. Whenever the two cannot be aligned, the whole `orig_text` is the
    answer.
    """
    whole = (0, len(orig_text))
    if tok_text is None:
        tok_text = " ".join(BasicTokenizer(do_lower_case=do_lower_case).tokenize(orig_text))
    start = tok_text.find(pred_text)
    if start == -1 or not pred_text:
        return whole
    end = start + len(pred_text) - 1
    orig_ns, orig_ns_to_s = _strip_spaces(orig_text)
    tok_ns, tok_ns_to_s = _strip_spaces(tok_text)
    if len(orig_ns) != len(tok_ns):
        return whole
    tok_s_to_ns = {s: ns for ns, s in enumerate(tok_ns_to_s)}
    if start not in tok_s_to_ns or end not in tok_s_to_ns:
        return whole
    return orig_ns_to_s[tok_s_to_ns[start]], orig_ns_to_s[tok_s_to_ns[end]] + 1


def get_final_text(pred_text, orig_text, do_lower_case):
    """The original `get_final_text`: the part of `orig_text` that `pred_text` is."""
    start, end = final_text_span(pred_text, orig_text, do_lower_case)
    return orig_text[start:end]


def _strip_spaces(text):
    """(text without " ", offset in `text` of each kept character)."""
    kept = [i for i, c in enumerate(text) if c != " "]
    return "".join(text[i] for i in kept), kept


def span_texts(example, first_word, last_word, pred_text, do_lower_case, word_text=None):
    """(original text, context text) of a predicted span of context words.

    The original text joins the words with single spaces and is cut by
    `get_final_text`, which searches `pred_text` in `word_text(word)` of the
    words joined by spaces (default: BERT's basic tokenization); the context
    text is the same characters cut from the context, whitespace as it is there.
    """
    words = example.doc_tokens[first_word:last_word + 1]
    orig_text = " ".join(words)
    tok_text = None if word_text is None else " ".join(word_text(word) for word in words)
    start, end = final_text_span(pred_text, orig_text, do_lower_case, tok_text)
    to_context = []
    for w, word in enumerate(words):
        if w:
            to_context.append(None)  # the joining space
        offset = example.word_starts[first_word + w]
        to_context.extend(range(offset, offset + len(word)))
    if start >= end:
        return "", ""
    return orig_text[start:end], example.context[to_context[start]:to_context[end - 1] + 1]


def predict_example(example, features, windows, config, piece_text=piece_text, word_text=None):
    """(prediction text, n-best entries, null odds or None) of one example.

    `features` are its `SquadFeature` windows and `windows` their
    (start_logits, end_logits), in the same order. `piece_text(pieces)` reads
    a span's pieces as text and `word_text(word)` a context word as the text
    `get_final_text` searches (`span_texts`): WordPiece's by default.
    """
    candidates = []
    for index, (feature, (start_logits, end_logits)) in enumerate(zip(features, windows)):
        candidates += window_candidates(
            index, start_logits, end_logits, feature.token_to_orig_map,
            feature.token_is_max_context, config.n_best_size, config.max_answer_length)
    null = null_candidate(windows) if config.version_2_with_negative else None
    if null is not None:
        candidates.append(null)

    context_texts = {}

    def text_of(candidate):
        feature = features[candidate.feature_index]
        orig_text, context_text = span_texts(
            example, feature.token_to_orig_map[candidate.start_index],
            feature.token_to_orig_map[candidate.end_index],
            piece_text(feature.tokens[candidate.start_index:candidate.end_index + 1]),
            config.do_lower_case, word_text)
        context_texts[candidate] = context_text
        return orig_text

    ranked = rank_candidates(candidates, config.n_best_size, text_of)
    entries = [(context_texts.get(c, ""), c.start_logit, c.end_logit) for _, c in ranked]
    if null is not None and not any(c.is_null for _, c in ranked):
        entries.append(("", null.start_logit, null.end_logit))
    if not entries:
        entries.append(("", 0.0, 0.0))
    probabilities = softmax([s + e for _, s, e in entries])
    nbest = [{"text": text, "probability": p, "start_logit": s, "end_logit": e}
             for (text, s, e), p in zip(entries, probabilities)]
    best_non_null = next((entry for entry in nbest if entry["text"]), None)
    if null is None:
        return nbest[0]["text"], nbest, None
    if best_non_null is None:
        return "", nbest, null.score
    null_odds = null.score - best_non_null["start_logit"] - best_non_null["end_logit"]
    text = "" if null_odds > config.null_score_diff_threshold else best_non_null["text"]
    return text, nbest, null_odds


def postprocess(examples, features, results, config, predict=predict_example):
    """`SquadPredictions` for `examples` from `results` {unique_id: (start_logits,
    end_logits)} of their `features`. A feature without a result is an error.
    `predict` reads one example's results: `predict_example` for start/end
    logits, `question_answering_beam.predict_example_beam` for XLNet's beam."""
    by_example = [[] for _ in examples]
    for feature in features:
        by_example[feature.example_index].append(feature)
    predictions, nbest, null_odds = {}, {}, {}
    for example, example_features in zip(examples, by_example):
        missing = [f.unique_id for f in example_features if f.unique_id not in results]
        if missing:
            raise KeyError(f"no logits for feature(s) {missing[:5]} of question {example.qas_id}")
        windows = [results[f.unique_id] for f in example_features]
        text, entries, odds = predict(example, example_features, windows, config)
        predictions[example.qas_id] = text
        nbest[example.qas_id] = entries
        if odds is not None:
            null_odds[example.qas_id] = odds
    return SquadPredictions(predictions, nbest,
                            null_odds if config.version_2_with_negative else None)


def write_predictions(squad_predictions, output_dir):
    """Writes predictions.json, nbest_predictions.json (and null_odds.json for
    v2.0) atomically; returns their paths."""
    files = {PREDICTIONS_FILE: squad_predictions.predictions, NBEST_FILE: squad_predictions.nbest}
    if squad_predictions.null_odds is not None:
        files[NULL_ODDS_FILE] = squad_predictions.null_odds
    paths = []
    for name, value in files.items():
        path = os.path.join(output_dir, name)
        atomic_write_text(path, json.dumps(value, indent=4, ensure_ascii=False) + "\n")
        paths.append(path)
    return paths
