"""The baselines' models: binary bag-of-words features of a text or a text
pair, the taggers, and logistic / ridge regression whose regularisation is
chosen by cross-validation on the training data, so the floor the
systems are measured against is trained as well as it can be.
Everything is deterministic: fixed folds, solvers without random starts.
"""

import collections

import scipy.sparse
from sklearn.feature_extraction import DictVectorizer
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression, Ridge, RidgeCV
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold, PredefinedSplit, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import normalize

from comparisons.baseline_data import words

FOLDS = 5
C_GRID = (0.01, 0.1, 1.0, 10.0, 100.0)
TAGGER_C_GRID = (1.0, 10.0, 100.0)  # the tagger's: below 1 it only underfits more, and each C is 3 fits
TAGGER_FOLDS = 3
ALPHA_GRID = (0.1, 1.0, 10.0, 100.0, 1000.0)
_SOLVER = "newton-cg"  # on these sparse binary features 1.5-3x faster than lbfgs, to the same optimum
_MAX_ITER = 1000
_SEED = 0


class BagOfWords:
    """Binary n-gram counts of one text. Of a pair: [BoW(a) * BoW(b),
    |BoW(a) - BoW(b)|], the n-grams both texts hold and those only one holds
    (so a linear model can weigh overlap and difference whatever the pair's
    order), scaled to unit length, and the pair's `word_overlap`: without it
    a linear model cannot form the share of words in common, the one signal
    that needs no training (STS-B: Pearson 53 without, 72 with, on 1,500
    training pairs). The vocabulary is the training texts' (both columns)."""

    def __init__(self, ngrams=(1, 2)):
        self.vectorizer = CountVectorizer(tokenizer=words, lowercase=False, token_pattern=None,
                                          ngram_range=ngrams, binary=True)

    def fit_transform(self, texts):
        """`texts`: one list of strings per text column (one or two columns)."""
        self.vectorizer.fit([text for column in texts for text in column])
        return self.transform(texts)

    def transform(self, texts):
        first, *rest = [self.vectorizer.transform(column) for column in texts]
        if not rest:
            return first
        (second,) = rest
        shared_and_one_sided = normalize(scipy.sparse.hstack([first.multiply(second), abs(first - second)]))
        overlap = [[word_overlap(a, b)] for a, b in zip(*texts)]
        return scipy.sparse.hstack([shared_and_one_sided, overlap], format="csr")


def word_overlap(a, b):
    """The Jaccard similarity of two texts' sets of `words`."""
    a, b = set(words(a)), set(words(b))
    return len(a & b) / len(a | b) if a | b else 0.0


def fit_logistic(features, labels, groups=None, scoring="accuracy"):
    """Logistic regression, C from `C_GRID` by cross-validated `scoring`.

    Folds are stratified by label, or with `groups` keep each group (the
    rows of one multiple-choice example) in one fold. With too few examples
    for two folds (a class or group count under 2) C stays at its default 1.
    """
    model = LogisticRegression(solver=_SOLVER, max_iter=_MAX_ITER)
    smallest = min(collections.Counter(labels).values()) if groups is None else len(set(groups))
    splits = min(FOLDS, smallest)
    if splits < 2:
        return model.fit(features, labels)
    folds = StratifiedKFold(splits, shuffle=True, random_state=_SEED) if groups is None else GroupKFold(splits)
    return GridSearchCV(model, {"C": C_GRID}, cv=folds, scoring=scoring).fit(features, labels, groups=groups)


def fit_ridge(features, targets):
    """Ridge regression, alpha from `ALPHA_GRID` by 5-fold cross-validated R²
    (alpha 1 when there are under 2 examples per fold)."""
    splits = min(FOLDS, len(targets) // 2)
    if splits < 2:
        return Ridge().fit(features, targets)
    return RidgeCV(alphas=ALPHA_GRID, cv=KFold(splits, shuffle=True, random_state=_SEED)).fit(features, targets)


def word_features(sentence, i):
    """What the tagger sees of word `i`: the word, its 1-3 letter suffixes,
    3-letter prefix, whether it holds a digit or a hyphen, and its neighbours
    (lower-cased words: the comparison's casing policy hides capitals)."""
    word = sentence[i]
    return {"word": word, "prefix": word[:3], "suffix1": word[-1:], "suffix2": word[-2:], "suffix3": word[-3:],
            "digit": any(c.isdigit() for c in word), "hyphen": "-" in word,
            "previous": sentence[i - 1] if i else "<s>",
            "next": sentence[i + 1] if i + 1 < len(sentence) else "</s>"}


class MostFrequentTag:
    """Each word's most frequent training tag (ties: the tag seen first); a
    word not seen in training gets the most frequent tag overall."""

    def __init__(self, sentences):
        counts = collections.defaultdict(collections.Counter)
        for sentence, tags in sentences:
            for word, tag in zip(sentence, tags):
                counts[word][tag] += 1
        self.unknown = sum(counts.values(), collections.Counter()).most_common(1)[0][0]
        self.known = {word: tags.most_common(1)[0][0] for word, tags in counts.items()}

    def tag(self, sentences):
        return [[self.known.get(word, self.unknown) for word in sentence] for sentence in sentences]


class LogisticTagger:
    """Logistic regression over each word's `word_features`, C chosen from
    `TAGGER_C_GRID` by cross-validated token accuracy, folds of whole
    sentences (every third sentence a fold, so a rare tag's sentences spread
    over the folds). The default C underfits small training sets: on the
    first 100 sentences of CoNLL-2003's train it found almost no entity (NER
    F1 5.8 against 19.3 at C = 100), which would flatter every system measured
    against it. The search costs CPU: 94 s for POS's 43 tags on 1,000
    sentences, 17 s for NER (one fit at the default C took about 7 s)."""

    def __init__(self, sentences):
        rows = _word_feature_rows([sentence for sentence, _ in sentences])
        tags = [tag for _, sentence_tags in sentences for tag in sentence_tags]
        folds = [i % TAGGER_FOLDS for i, (sentence, _) in enumerate(sentences) for _ in sentence]
        pipeline = make_pipeline(DictVectorizer(), LogisticRegression(solver=_SOLVER, max_iter=_MAX_ITER))
        if len(sentences) < TAGGER_FOLDS:
            self.model = pipeline.fit(rows, tags)
        else:
            self.model = GridSearchCV(pipeline, {"logisticregression__C": TAGGER_C_GRID},
                                      cv=PredefinedSplit(folds)).fit(rows, tags)

    def tag(self, sentences):
        predicted = iter(self.model.predict(_word_feature_rows(sentences)))
        return [[next(predicted) for _ in sentence] for sentence in sentences]


def _word_feature_rows(sentences):
    return [word_features(sentence, i) for sentence in sentences for i in range(len(sentence))]
