"""The main job's gate and choice: a rate counts only where its run left the
label prior AND fit its training data (train accuracy half way from the
majority's to 100%); the best such rate wins; with none, the best score runs
and the summary says no rate trained."""

from demo.learning_rate_choice import chosen_rate, majority_share, selection_rows, trained


def row(rate, score, train_loss, train_accuracy):
    return {"learning_rate": rate, "score": score, "train_loss": train_loss, "prior_loss": 0.693,
            "train_split_accuracy": train_accuracy}


def test_majority_share_counts_the_train_labels(tmp_path):
    (tmp_path / "train.tsv").write_text("sentence\tlabel\na \"b\tx\nc\tx\nd\ty\n", encoding="utf-8")
    assert majority_share(str(tmp_path)) == 100.0 * 2 / 3


def test_a_rate_counts_only_when_its_run_fit_its_training_data():
    assert trained(row(1e-3, 0.6, 0.3, 0.75), chance=50.0)
    assert not trained(row(1e-3, 0.6, 0.3, 0.74), chance=50.0)  # loss left the prior, accuracy short of 75%
    assert not trained(row(1e-3, 0.6, 0.68, 0.95), chance=50.0)  # accuracy high, loss at ln 2
    assert not trained({"train_loss": 0.3, "prior_loss": 0.693}, chance=50.0)  # no train accuracy recorded
    rows = [row(1e-4, 0.9, 0.6, 0.6), row(1e-3, 0.7, 0.2, 0.95), row(3e-3, 0.8, 0.1, 0.99)]
    assert chosen_rate(rows, chance=50.0) == (3e-3, True)  # 1e-4 scores best but did not train
    assert chosen_rate(rows[:1], chance=50.0) == (1e-4, False)


def test_a_selection_of_one_rate_reads_its_runs_results(tmp_path):
    """The quick job selects from one rate: the runner ran it alone, with no sweep table."""
    (tmp_path / "eval_results.txt").write_text(
        "eval_accuracy = 0.9\nprior_loss = 0.693\ntrain_loss = 0.2\ntrain_split_accuracy = 0.95\n",
        encoding="utf-8")
    (rows,) = selection_rows(str(tmp_path), (1e-3,))
    assert (rows["learning_rate"], rows["train_loss"], rows["train_split_accuracy"]) == (1e-3, 0.2, 0.95)
    assert chosen_rate([rows], chance=50.0) == (1e-3, True)
