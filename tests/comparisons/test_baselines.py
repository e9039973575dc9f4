"""The tasks' non-neural baselines on tiny files whose scores follow by hand:
majority labels, word overlap and most frequent tags exactly, the regressions
at 100 on separable sets, word order's unigram check at chance on a set whose
two classes share every bag of words, and errors that name file and line."""

import itertools
import json
import math

import numpy as np
import pytest
import scipy.sparse
from scipy.stats import pearsonr
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import KFold
from sklearn.preprocessing import normalize

from comparisons.baseline_models import ALPHA_GRID, TAGGER_C_GRID, TAGGER_FOLDS, BagOfWords, LogisticTagger
from comparisons.baselines import baselines_for, chance
from tasks.classification.examples import BadRowError
from tasks.tagging.conll_reader import TaggedFileError

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]


def scores(baselines):
    return {b.name: b.score for b in baselines}


def write(path, lines, bom=False):
    path.write_text(("\ufeff" if bom else "") + "\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def sentence_file(path, rows):
    return write(path, ["sentence\tlabel"] + [f"{text}\t{label}" for text, label in rows])


def test_sentence_classification_majority_and_a_separable_bag_of_words(tmp_path):
    train = [(f"A {w} film, truly GOOD.", "1") for w in WORDS] + [(f"a {w} film : bad", "0") for w in WORDS[:5]]
    dev = [("a echo film , truly good .", "1"), ("A delta film, truly Good!", "1"), ("a bravo film: bad", "0"),
           ("A foxtrot film : BAD", "0"), ("an alpha film: bad", "0")]
    result = baselines_for("classification", sentence_file(tmp_path / "train.tsv", train),
                           sentence_file(tmp_path / "dev.tsv", dev))
    assert scores(result) == {"majority": 40.0, "bag_of_words": 100.0}  # majority "1": 2 of 5
    assert all(b.title for b in result)


def test_word_order_unigrams_sit_at_chance_when_the_classes_share_their_bags(tmp_path):
    """Every dev bag of words comes once in each order, so any function of the
    bag is right on exactly half; the bigram is the only cue, and it is enough."""
    pairs = list(itertools.combinations(WORDS[:5], 2))
    rows = [(f"{a} {b}", "original") for a, b in pairs] + [(f"{b} {a}", "inverted") for a, b in pairs]
    result = baselines_for("classification", sentence_file(tmp_path / "train.tsv", rows * 2),
                           sentence_file(tmp_path / "dev.tsv", rows), word_order=True)
    # majority: a 20/20 tie goes to the first label in sorted order, "inverted"
    assert scores(result) == {"majority": 50.0, "bag_of_words": 50.0, "bigram_logistic_regression": 100.0}


def mrpc_file(path, rows):
    return write(path, ["Quality\t#1 ID\t#2 ID\t#1 String\t#2 String"]
                 + [f"{label}\t{i}\t{i + 1}\t{a}\t{b}" for i, (label, a, b) in enumerate(rows)], bom=True)


def test_pair_classification_reads_mrpc_columns_and_separates_paraphrases(tmp_path):
    same = [("1", f"{a} {b}.", f"{a} {b}.") for a, b in itertools.combinations(WORDS, 2)]
    apart = [("0", f"{a} {b}", f"{c} {d}") for (a, b), (c, d) in zip(itertools.combinations(WORDS, 2),
                                                                     itertools.combinations(WORDS[::-1], 2))
             if not {a, b} & {c, d}]
    dev = [("1", "Echo alpha", "echo alpha"), ("0", "alpha echo", "bravo delta"), ("0", "foxtrot", "charlie")]
    result = baselines_for("pair_classification", mrpc_file(tmp_path / "train.tsv", same + apart),
                           mrpc_file(tmp_path / "dev.tsv", dev))
    assert len(same) > len(apart)  # majority: "1", right on 1 of 3
    assert scores(result) == {"majority": pytest.approx(100 / 3), "bag_of_words": 100.0}


def stsb_file(path, rows):
    header = "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore"
    return write(path, [header] + [f"{i}\tmain\tf\t2012\t{i}\tnone\tnone\t{a}\t{b}\t{score}"
                                   for i, (a, b, score) in enumerate(rows)])


# word sets lower-cased, punctuation split off: Jaccard by hand
SIMILARITY_DEV = [("A plane.", "a plane is here", 1.5, 2 / 5),
                  ("Two men play chess", "two MEN play chess", 4.8, 1.0),
                  ("a cat", "the dog", 0.2, 0.0),
                  ("It's raining!", "it rains", 0.8, 1 / 6),  # it ' s raining ! / it rains
                  ("The man sings", "a man sings", 3.9, 2 / 4)]


def test_word_overlap_is_the_pearson_r_of_jaccard_similarities(tmp_path):
    train = [(f"{a} {b}", f"{b} {c}", 2.5) for a, b, c in itertools.permutations(WORDS[:4], 3)]
    dev = [(a, b, score) for a, b, score, _ in SIMILARITY_DEV]
    result = scores(baselines_for("similarity", stsb_file(tmp_path / "train.tsv", train),
                                  stsb_file(tmp_path / "dev.tsv", dev)))
    expected = pearsonr([s for _, _, s, _ in SIMILARITY_DEV], [j for *_, j in SIMILARITY_DEV]).statistic
    assert result["word_overlap"] == pytest.approx(100 * expected, abs=1e-9)


def test_bag_of_words_ridge_matches_scikit_learn_built_independently(tmp_path):
    """The pair features rebuilt from their definition with scikit-learn's own
    tokenizer on pre-split text: shared and one-sided n-grams at unit length,
    then the Jaccard of the word sets; alpha by 5-fold CV as documented."""
    rng = np.random.default_rng(3)
    pairs = [(" ".join(rng.choice(WORDS, 4)), " ".join(rng.choice(WORDS, 3))) for _ in range(40)]
    rows = [(a, b, round(float(rng.uniform(0, 5)), 3)) for a, b in pairs]
    train, dev = rows[:30], rows[30:]
    result = scores(baselines_for("similarity", stsb_file(tmp_path / "train.tsv", train),
                                  stsb_file(tmp_path / "dev.tsv", dev)))

    vectorizer = CountVectorizer(token_pattern=r"\S+", ngram_range=(1, 2), binary=True)
    vectorizer.fit([t for a, b, _ in train for t in (a, b)])

    def features(rows):
        a = vectorizer.transform([r[0] for r in rows]).toarray()
        b = vectorizer.transform([r[1] for r in rows]).toarray()
        jaccard = [[len(set(x.split()) & set(y.split())) / len(set(x.split()) | set(y.split()))] for x, y, _ in rows]
        # sparse, as the module's are: Ridge then takes the same solver
        return scipy.sparse.csr_matrix(np.hstack([normalize(np.hstack([a * b, np.abs(a - b)])), jaccard]))

    model = RidgeCV(alphas=ALPHA_GRID, cv=KFold(5, shuffle=True, random_state=0)).fit(
        features(train), [s for *_, s in train])
    expected = pearsonr([s for *_, s in dev], model.predict(features(dev))).statistic
    assert result["bag_of_words"] == pytest.approx(100 * expected, abs=1e-6)


def test_pair_features_by_hand():
    features = BagOfWords(ngrams=(1, 1))
    row = features.fit_transform([["The cat"], ["the dog"]]).toarray()[0]
    # vocabulary cat, dog, the: shared [0, 0, 1], one-sided [1, 1, 0], at unit length; Jaccard 1/3
    third = 1 / math.sqrt(3)
    assert row == pytest.approx([0, 0, third, third, third, 0, 1 / 3])


def test_a_constant_prediction_has_no_correlation(tmp_path):
    train = [("a b", "a c", 1.0), ("a b", "a b", 5.0), ("b c", "d e", 0.0)]
    dev = [("a b", "b c", 1.0), ("c d", "d e", 2.0)]  # both Jaccard 1/3
    result = scores(baselines_for("similarity", stsb_file(tmp_path / "train.tsv", train),
                                  stsb_file(tmp_path / "dev.tsv", dev)))
    assert math.isnan(result["word_overlap"])


CONLL_TRAIN = """-DOCSTART- -X- -X- O

John NNP I-NP I-PER
lives VBZ I-VP O
in IN I-PP O
Paris NNP I-NP I-LOC
. . O O

Mary NNP I-NP I-PER
visits VBZ I-VP O
paris NNP I-NP I-LOC
. . O O
"""
CONLL_DEV = """-DOCSTART- -X- -X- O

Anna NNP I-NP I-PER
quickly RB I-ADVP O
visits VBZ I-VP O
Paris NNP I-NP I-LOC
. . O O
"""


@pytest.mark.parametrize("column, expected", [
    (1, 80.0),  # anna unknown -> NNP (most frequent overall), right; quickly -> NNP, wrong: 4/5 tokens
    (2, 400 / 7),  # gold NP ADVP VP NP; predicted one NP over anna quickly, VP, NP: P 2/3, R 2/4
    (3, 200 / 3),  # gold PER, LOC; predicted LOC only: P 1, R 1/2
])
def test_most_frequent_tag_per_lower_cased_word(tmp_path, column, expected):
    result = scores(baselines_for("tagging", write(tmp_path / "train.txt", [CONLL_TRAIN]),
                                  write(tmp_path / "dev.txt", [CONLL_DEV]), tag_column=column))
    assert result["most_frequent_tag"] == pytest.approx(expected, abs=1e-9)


def test_the_logistic_regression_tagger_learns_a_separable_tag_set(tmp_path):
    train = "\n".join([CONLL_TRAIN.split("\n", 2)[2]] * 5)
    dev = "John visits Paris .".split()
    tags = {"john": "NNP", "visits": "VBZ", "paris": "NNP", ".": "."}
    dev_text = "\n".join(f"{w} {tags[w.lower()]} O O" for w in dev)
    result = scores(baselines_for("tagging", write(tmp_path / "train.txt", [train]),
                                  write(tmp_path / "dev.txt", [dev_text]), tag_column=1))
    assert result == {"most_frequent_tag": 100.0, "logistic_regression": 100.0}


def test_the_logistic_regression_taggers_c_is_chosen_on_folds_of_whole_sentences():
    sentences = [(words, ["B-LOC" if w == "paris" else "O" for w in words])
                 for words in (["to", "paris", "now"], ["the", "man", "said"], ["it", "was", "fine", "and", "well"],
                               ["so", "we", "left"], ["from", "paris"], ["early", "on"], ["he", "said", "it", "was"],
                               ["fine"], ["near", "paris", "today"])]
    search = LogisticTagger(sentences).model
    token_folds = list(search.cv.test_fold)
    assert token_folds == [i % TAGGER_FOLDS for i, (words, _) in enumerate(sentences) for _ in words]
    assert sorted(search.cv_results_["param_logisticregression__C"]) == sorted(TAGGER_C_GRID)
    assert search.best_params_["logisticregression__C"] in TAGGER_C_GRID


def choice_file(path, examples):
    return write(path, [json.dumps({"id": str(i), "context": c, "endings": e, "label": l})
                        for i, (c, e, l) in enumerate(examples)])


def test_multiple_choice_random_overlap_and_bag_of_words(tmp_path):
    """The answer repeats the context's words; the others share none."""
    examples = []
    for i, (a, b) in enumerate(itertools.combinations(WORDS, 2)):
        others = [w for w in WORDS if w not in (a, b)]
        endings = [f"{others[0]} {others[1]}", f"{others[2]} {others[3]}", f"{others[1]} {others[2]}"]
        endings.insert(i % 4, f"{b} {a}")
        examples.append((f"{a} {b}", endings, i % 4))
    ties = [("alpha bravo", ["alpha x", "bravo y", "z"], 0),  # overlap 1, 1, 0: the first wins, right
            ("alpha bravo", ["alpha x", "bravo y", "z"], 1)]  # the first wins, wrong
    result = scores(baselines_for("multiple_choice", choice_file(tmp_path / "train.jsonl", examples),
                                  choice_file(tmp_path / "dev.jsonl", examples)))
    assert result == {"random": 25.0, "word_overlap": 100.0, "bag_of_words": 100.0}
    result = scores(baselines_for("multiple_choice", choice_file(tmp_path / "train.jsonl", examples),
                                  choice_file(tmp_path / "dev.jsonl", ties)))
    assert (result["random"], result["word_overlap"]) == (pytest.approx(100 / 3), 50.0)


def test_too_few_examples_for_cross_validation_still_fit(tmp_path):
    train = sentence_file(tmp_path / "train.tsv", [("good", "1"), ("good film", "1"), ("bad", "0")])
    result = scores(baselines_for("classification", train, train))
    assert result["majority"] == pytest.approx(200 / 3)
    stsb = stsb_file(tmp_path / "sts.tsv", [("a b", "a b", 5.0), ("a b", "c d", 0.0), ("a b", "a c", 2.0)])
    assert set(scores(baselines_for("similarity", stsb, stsb))) == {"word_overlap", "bag_of_words"}


def test_bad_input_names_file_and_line(tmp_path):
    good = sentence_file(tmp_path / "good.tsv", [("good", "1"), ("bad", "0")])
    short = write(tmp_path / "short.tsv", ["sentence\tlabel", "fine\t1", "no label here"])
    with pytest.raises(BadRowError, match=r"short.tsv:3: missing column 1 \(label\)"):
        baselines_for("classification", short, good)
    with pytest.raises(ValueError, match="one.tsv: every example is labelled '1'"):
        baselines_for("classification", sentence_file(tmp_path / "one.tsv", [("a", "1"), ("b", "1")]), good)
    scores_file = stsb_file(tmp_path / "sts.tsv", [("a", "b", 1.0), ("a", "c", "high")])
    with pytest.raises(BadRowError, match=r"sts.tsv:3: label 'high' is not a finite number"):
        baselines_for("similarity", scores_file, scores_file)
    conll = write(tmp_path / "bad.txt", ["John NNP I-NP I-PER", "lives VBZ", ""])
    with pytest.raises(TaggedFileError, match=r"bad.txt:2: no tag column 3 in 2 columns"):
        baselines_for("tagging", conll, conll, tag_column=3)
    with pytest.raises(ValueError, match="unknown task kind 'regression'"):
        baselines_for("regression", good, good)


def test_chance_is_the_constant_predictions_score_on_the_train_file(tmp_path):
    """The gate's floor: the train file's most frequent label everywhere."""
    sentences = sentence_file(tmp_path / "train.tsv", [("good", "1"), ("good film", "1"), ("bad", "0")])
    conll = write(tmp_path / "train.txt", [CONLL_TRAIN])
    choices = choice_file(tmp_path / "train.jsonl", [("a b", ["a", "b", "c"], 0)])
    stsb = stsb_file(tmp_path / "sts.tsv", [("a b", "a b", 5.0), ("a b", "c d", 0.0)])
    assert chance("classification", sentences, glue_task="sst-2") == pytest.approx(200 / 3)
    # CONLL_TRAIN: 4 tokens of 9 are NNP (the most frequent part-of-speech tag); "O" everywhere finds no entity
    assert chance("tagging", conll, tag_column=1) == pytest.approx(100 * 4 / 9)
    assert chance("tagging", conll, tag_column=3) == 0.0
    assert chance("multiple_choice", choices) == pytest.approx(100 / 3)
    assert chance("similarity", stsb, glue_task="sts-b") == 0.0
