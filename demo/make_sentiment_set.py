"""Writes the small labelled sentiment set that ships in `assets/demo_sentiment/`.

    python -m demo.make_sentiment_set

Sentences are composed from templates (subject, verb, optional negation,
intensifier, adjective, optional second clause), so the labels are exact and
the set is reproducible; negation and "but" clauses make word counting
insufficient. The files are TSV with a header (`sentence<TAB>label`, labels `negative` /
`positive`), read by `run_classifier.py --task_name=custom`.
"""

import os
import random

SUBJECTS = ["the movie", "this film", "the acting", "the soundtrack", "the plot", "the story",
            "the cast", "the ending", "the dialogue", "the camera work", "the script", "the sequel",
            "the lead actor", "the pacing", "the visual effects", "this documentary"]
POSITIVE = ["wonderful", "brilliant", "moving", "delightful", "superb", "charming", "gripping",
            "beautiful", "clever", "memorable", "touching", "excellent", "funny", "inspiring"]
NEGATIVE = ["boring", "dreadful", "clumsy", "tedious", "awful", "bland", "confusing", "painful",
            "forgettable", "shallow", "predictable", "terrible", "dull", "annoying"]
INTENSIFIERS = ["", "", "very ", "truly ", "rather ", "quite ", "remarkably ", "utterly "]
VERBS = ["was", "is", "felt", "seemed"]
NEGATED_VERBS = {"was": "was not", "is": "is not", "felt": "did not feel", "seemed": "never seemed"}
LABELS = ("negative", "positive")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _clause(rng, positive):
    verb = rng.choice(VERBS)
    negate = rng.random() < 0.3
    adjectives = POSITIVE if positive != negate else NEGATIVE
    verb = NEGATED_VERBS[verb] if negate else verb
    return f"{rng.choice(SUBJECTS)} {verb} {rng.choice(INTENSIFIERS)}{rng.choice(adjectives)}"


def make_sentence(rng):
    """(sentence, label): the label is the sentiment of the last clause after "but"."""
    label = rng.random() < 0.5
    if rng.random() < 0.35:
        sentence = f"{_clause(rng, not label)}, but {_clause(rng, label)}"
    else:
        sentence = _clause(rng, label)
    return sentence[0].upper() + sentence[1:] + rng.choice([".", ".", "!"]), LABELS[label]


def write_split(path, sentences):
    with open(path, "w", encoding="utf-8") as f:
        f.write("sentence\tlabel\n")
        for sentence, label in sentences:
            f.write(f"{sentence}\t{label}\n")


def main():
    rng = random.Random(2018)
    seen, rows = set(), []
    while len(rows) < 1200:
        sentence, label = make_sentence(rng)
        if sentence not in seen:
            seen.add(sentence)
            rows.append((sentence, label))
    out = os.path.join(ROOT, "assets", "demo_sentiment")
    os.makedirs(out, exist_ok=True)
    write_split(os.path.join(out, "train.tsv"), rows[:1000])
    write_split(os.path.join(out, "dev.tsv"), rows[1000:])


if __name__ == "__main__":
    main()
