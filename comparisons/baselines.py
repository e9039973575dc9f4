"""Each task's non-neural baselines, trained on the task's train subset and
scored on its dev subset, the files every system fine-tunes and is scored on.
A system that does not clear them has learnt nothing a word count could not:
the report shows them beside the systems, and a task no pretrained system
clears them on tells the systems apart on nothing.

| kind | files | baselines | score |
| --- | --- | --- | --- |
| `classification` | GLUE TSV (SST-2's layout) | majority; bag of words (uni+bigrams, LR) | accuracy |
| ... `word_order=True` | `sentence<TAB>label` | majority; unigram bag of words (LR); bigrams (LR) | accuracy |
| `pair_classification` | GLUE TSV (MRPC's layout) | majority; pair bag of words (LR) | accuracy |
| `similarity` | GLUE TSV (STS-B's layout) | word overlap (Jaccard); pair bag of words (ridge) | Pearson r |
| `tagging` | CoNLL text, `tag_column` | most frequent tag; LR tagger | entity F1 (IOB tags) or token accuracy |
| `multiple_choice` | JSON lines | random; word overlap; pair bag of words (LR) | accuracy |

Scores are in the task's points (x 100). `glue_task` names the GLUE task
whose column layout a TSV has (`glue_readers.GLUE_TASKS`). Word order's
unigram bag of words is a check, not a floor: its two classes share their
bag of words, so it sits at chance unless the set leaks a lexical cue.

Example:
>>> baselines_for("tagging", "conll/train.txt", "conll/dev.txt", tag_column=3)
[Baseline(name='most_frequent_tag', title='most frequent tag per word (...)', score=51.3...), ...]
"""

import collections
import dataclasses
import functools

import numpy as np
from scipy.stats import pearsonr
from sklearn.dummy import DummyClassifier
from sklearn.metrics import accuracy_score
from threadpoolctl import threadpool_limits

from comparisons.baseline_data import read_choices, read_tagged, read_tsv, words
from comparisons.baseline_models import (BagOfWords, LogisticTagger, MostFrequentTag, fit_logistic, fit_ridge,
                                         word_overlap)
from tasks.classification.glue_readers import glue_task as glue_task_named
from tasks.tagging.conll_reader import split_tag
from tasks.tagging.metrics import entity_scores


@dataclasses.dataclass(frozen=True)
class Baseline:
    name: str  # a stable key, e.g. "bag_of_words"
    title: str  # what it is, for the report
    score: float  # in the task's points: accuracy, F1 or Pearson r, x 100


_PAIR_WORDS = "shared and one-sided words and bigrams and word overlap"


def baselines_for(kind, train_path, dev_path, **options):
    """The `Baseline`s of a task of `kind` (see the table above); `options`
    are the kind's: `glue_task` and `word_order` for classification, `glue_task`
    for pairs, `tag_column` for tagging."""
    if kind not in KINDS:
        raise ValueError(f"unknown task kind {kind!r}; expected one of {sorted(KINDS)}")
    # One BLAS thread: these sparse models gain nothing from more, and on a busy
    # 2-core host extra threads contend (a 4x slower next-sentence fit measured).
    with threadpool_limits(limits=1):
        return KINDS[kind](train_path, dev_path, **options)


def _classification(train_path, dev_path, glue_task, word_order=False):
    layout = glue_task_named(glue_task).splits["train"]
    train_texts, train_labels = read_tsv(train_path, layout, regression=False)
    dev_texts, dev_labels = read_tsv(dev_path, layout, regression=False)
    if len(set(train_labels)) < 2:
        raise ValueError(f"{train_path}: every example is labelled {train_labels[0]!r}; "
                         "a classifier needs two labels")
    majority = DummyClassifier(strategy="most_frequent").fit(train_texts[0], train_labels)
    baselines = [Baseline("majority", "majority label", _accuracy(dev_labels, majority.predict(dev_texts[0])))]
    if word_order:
        models = [("bag_of_words", "logistic regression over words (chance unless a lexical cue leaks)", (1, 1)),
                  ("bigram_logistic_regression", "logistic regression over word bigrams", (2, 2))]
    else:
        over = "the pair's " + _PAIR_WORDS if len(train_texts) == 2 else "words and bigrams"
        models = [("bag_of_words", "logistic regression over " + over, (1, 2))]
    for name, title, ngrams in models:
        features = BagOfWords(ngrams)
        model = fit_logistic(features.fit_transform(train_texts), train_labels)
        baselines.append(Baseline(name, title, _accuracy(dev_labels, model.predict(features.transform(dev_texts)))))
    return baselines


def _similarity(train_path, dev_path, glue_task="sts-b"):
    layout = glue_task_named(glue_task).splits["train"]
    train_texts, train_scores = read_tsv(train_path, layout, regression=True)
    dev_texts, dev_scores = read_tsv(dev_path, layout, regression=True)
    overlap = [word_overlap(a, b) for a, b in zip(*dev_texts)]
    features = BagOfWords()
    model = fit_ridge(features.fit_transform(train_texts), train_scores)
    return [Baseline("word_overlap", "word overlap (Jaccard), no training", _pearson(dev_scores, overlap)),
            Baseline("bag_of_words", "ridge regression over the pair's " + _PAIR_WORDS,
                     _pearson(dev_scores, model.predict(features.transform(dev_texts))))]


def _tagging(train_path, dev_path, tag_column):
    """Scored by conlleval's chunk F1 when every tag is IOB (O, B-X, I-X:
    NER, chunks), else by token accuracy (part of speech)."""
    train, dev = read_tagged(train_path, tag_column), read_tagged(dev_path, tag_column)
    score = _chunk_f1 if _all_iob(train + dev) else _token_accuracy
    gold, sentences = [tags for _, tags in dev], [sentence for sentence, _ in dev]
    return [Baseline("most_frequent_tag", "most frequent tag per word (unknown words: the most frequent tag)",
                     score(gold, MostFrequentTag(train).tag(sentences))),
            Baseline("logistic_regression", "logistic-regression tagger (word, affixes, neighbours)",
                     score(gold, LogisticTagger(train).tag(sentences)))]


def _multiple_choice(train_path, dev_path):
    train_choices, train_labels = read_choices(train_path)
    dev_choices, dev_labels = read_choices(dev_path)
    overlap = [np.argmax([len(set(words(context)) & set(words(ending))) for context, ending in choices])
               for choices in dev_choices]  # argmax: ties go to the first
    features = BagOfWords()
    rows = features.fit_transform(_pair_columns(train_choices))
    is_answer = [int(i == label) for choices, label in zip(train_choices, train_labels)
                 for i in range(len(choices))]
    groups = [n for n, choices in enumerate(train_choices) for _ in choices]
    model = fit_logistic(rows, is_answer, groups, scoring="neg_log_loss")
    scores = model.decision_function(features.transform(_pair_columns(dev_choices))).reshape(len(dev_choices), -1)
    return [Baseline("random", "a random ending (its expectation)", 100.0 / len(dev_choices[0])),
            Baseline("word_overlap", "the ending sharing most words with the context",
                     _accuracy(dev_labels, overlap)),
            Baseline("bag_of_words", "the ending that logistic regression over (context, ending) "
                     + _PAIR_WORDS + " scores highest",
                     _accuracy(dev_labels, scores.argmax(axis=1)))]


def _pair_columns(choices):
    """[contexts, endings], one row per (example, ending)."""
    return [[text for pairs in choices for text, _ in pairs], [text for pairs in choices for _, text in pairs]]


def _all_iob(sentences):
    try:
        for _, tags in sentences:
            for tag in tags:
                split_tag(tag)
    except ValueError:
        return False
    return True


def _accuracy(gold, predicted):
    return 100.0 * accuracy_score(gold, predicted)


def _token_accuracy(gold, predicted):
    return _accuracy([tag for tags in gold for tag in tags], [tag for tags in predicted for tag in tags])


def _chunk_f1(gold, predicted):
    return 100.0 * entity_scores(gold, predicted).f1


def _pearson(gold, predicted):
    """Pearson r x 100; NaN for a constant prediction (undefined, as the
    verdicts treat a run that predicts one constant)."""
    if np.ptp(predicted) == 0:
        return float("nan")
    return 100.0 * pearsonr(gold, predicted).statistic


def chance(kind, train_path, **options):
    """The score on `train_path` of predicting its most frequent label
    everywhere (tagging: its most frequent tag; similarity: a constant, r 0;
    multiple choice: a random ending): the floor a fine-tuning run must fit
    its training data well above (`training.label_prior.fits`)."""
    if kind == "similarity":
        return 0.0
    if kind == "multiple_choice":
        choices, _ = read_choices(train_path)
        return 100.0 / len(choices[0])
    if kind == "tagging":
        train = read_tagged(train_path, options["tag_column"])
        gold = [tags for _, tags in train]
        common = collections.Counter(tag for tags in gold for tag in tags).most_common(1)[0][0]
        score = _chunk_f1 if _all_iob(train) else _token_accuracy
        return score(gold, [[common] * len(tags) for tags in gold])
    layout = glue_task_named(options["glue_task"]).splits["train"]
    _, labels = read_tsv(train_path, layout, regression=False)
    return 100.0 * collections.Counter(labels).most_common(1)[0][1] / len(labels)


KINDS = {
    "classification": functools.partial(_classification, glue_task="sst-2"),
    "pair_classification": functools.partial(_classification, glue_task="mrpc"),
    "similarity": _similarity,
    "tagging": _tagging,
    "multiple_choice": _multiple_choice,
}
