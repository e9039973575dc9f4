"""XLNet's answers from its start x end beam, as the original XLNet `run_squad.py`
writes them.

Per example: in every window, each of the `start_n_top` starts is paired with
its `end_n_top` ends (`XLNetSquadHead`'s beam, start-major); a pair is a
candidate when both ends are context pieces, the window is the max-context one
for the start piece, end >= start and the span has at most `max_answer_length`
pieces. Candidates are ranked by start + end log-probability; the first
`n_best_size` distinct texts form the n-best list (`text`, `probability` by a
softmax over it, `start_log_prob`, `end_log_prob`, the original's keys). The
prediction is the best of them (v2.0: the best with a text, as a span of bare
word-start markers has none), never "" for a null answer: as the original,
whether to answer "" is left to a threshold on the null odds, which are the
smallest answer-class logit over the example's windows (`score_null`; v2.0
only).

Where we differ from the original, as Model Garden's `squad_lib_sp` does: the
last context piece of a window may start or end an answer (the original skips
positions `>= paragraph_len - 1`), and for v2.0 an empty text is passed over
for the prediction (the original takes the first entry). A span's text is
found word-level, as for BERT (`question_answering_answers.span_texts`: the
pieces' text located by `get_final_text` inside the words they cover, cut from
the context), where the original maps each piece to characters. The two agree
whenever a piece's text is the characters it covers (no accents removed, no
`` or '' rewritten) or the span covers whole words. A question without a
candidate (an empty context) has one entry "" with log-probabilities 0, as
its probability 1.0 says (the original and Model Garden: -1e6 each).
"""

import dataclasses

from families.xlnet.tokenizer import SPIECE_UNDERLINE
from tasks.question_answering.answers import postprocess, rank_candidates, softmax, span_texts

# The log-probabilities of the one entry "" of a question no span qualifies for.
NO_CANDIDATE_LOG_PROB = 0.0


@dataclasses.dataclass(frozen=True)
class BeamCandidate:
    """A span of window `feature_index` from the beam."""

    feature_index: int
    start_index: int
    end_index: int
    start_log_prob: float
    end_log_prob: float
    is_null = False

    @property
    def score(self):
        return self.start_log_prob + self.end_log_prob


def sentencepiece_text(pieces):
    """SentencePiece pieces back to text: "▁new ton" -> "newton"."""
    return "".join(pieces).replace(SPIECE_UNDERLINE, " ").strip()


def beam_candidates(feature_index, beam, token_to_orig_map, token_is_max_context,
                    max_answer_length):
    """Candidates of one window, in the original's pairing order. `beam` is the
    window's (start_top_log_probs, start_top_index, end_top_log_probs,
    end_top_index) as `XLNetSquadHead` gives them."""
    start_log_probs, start_indexes, end_log_probs, end_indexes = beam
    end_n_top = len(end_indexes) // len(start_indexes)
    candidates = []
    for i, (start_log_prob, start) in enumerate(zip(start_log_probs, start_indexes)):
        start = int(start)
        for j in range(i * end_n_top, (i + 1) * end_n_top):
            end = int(end_indexes[j])
            if start not in token_to_orig_map or end not in token_to_orig_map:
                continue
            if not token_is_max_context.get(start, False) or end < start:
                continue
            if end - start + 1 > max_answer_length:
                continue
            candidates.append(BeamCandidate(feature_index, start, end, float(start_log_prob),
                                            float(end_log_probs[j])))
    return candidates


def predict_example_beam(example, features, windows, config):
    """(prediction text, n-best entries, null odds or None) of one example.
    `windows` are its features' (beam, cls_logit), in the same order."""
    candidates = []
    for index, (feature, (beam, _)) in enumerate(zip(features, windows)):
        candidates += beam_candidates(index, beam, feature.token_to_orig_map,
                                      feature.token_is_max_context, config.max_answer_length)

    context_texts = {}

    def text_of(candidate):
        feature = features[candidate.feature_index]
        pred_text = sentencepiece_text(feature.tokens[candidate.start_index:candidate.end_index + 1])
        if not pred_text:  # only word-start markers: no characters, as the original
            context_texts[candidate] = ""
            return ""
        orig_text, context_texts[candidate] = span_texts(
            example, feature.token_to_orig_map[candidate.start_index],
            feature.token_to_orig_map[candidate.end_index], pred_text, config.do_lower_case)
        return orig_text

    entries = [(context_texts[c], c.start_log_prob, c.end_log_prob)
               for _, c in rank_candidates(candidates, config.n_best_size, text_of)]
    if not entries:
        entries.append(("", NO_CANDIDATE_LOG_PROB, NO_CANDIDATE_LOG_PROB))
    probabilities = softmax([s + e for _, s, e in entries])
    nbest = [{"text": text, "probability": p, "start_log_prob": s, "end_log_prob": e}
             for (text, s, e), p in zip(entries, probabilities)]
    null_odds = (min(float(cls_logit) for _, cls_logit in windows)
                 if config.version_2_with_negative else None)
    if not config.version_2_with_negative:
        return nbest[0]["text"], nbest, None
    best = next((entry["text"] for entry in nbest if entry["text"]), "")
    return best, nbest, null_odds


def postprocess_beam(examples, features, results, config):
    """`SquadPredictions` for `examples` from `results` {unique_id: (beam,
    cls_logit)} of their `features`. A feature without a result is an error."""
    return postprocess(examples, features, results, config, predict_example_beam)
