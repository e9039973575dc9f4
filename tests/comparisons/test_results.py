"""`results.json`'s reading of the ledger: the LM loss it reports against the
unigram prior (the language model's alone, from what each family's pretraining
logs), an arm without a score told apart as not run or failed by the gate, and
what the gate did to an arm's runs."""

import math

import pytest

from comparisons.arms import Arm
from comparisons.budget import Budget
from comparisons.papers import Ordering
from comparisons.results import arm_gated, check, gate_record, lm_loss

# Last logged steps as the cpu tier's pretraining runs wrote them (2026-12-01, BERT's and LTR's; GPT's,
# XLNet's and ELMo's keys as their pretraining tasks name their metrics).
LOGGED = [
    ({"loss": 6.637, "masked_lm_accuracy": 0.1095, "masked_lm_loss": 6.243, "next_sentence_accuracy": 0.8235,
      "next_sentence_loss": 0.3977}, 6.243),
    ({"loss": 5.441, "masked_lm_accuracy": 0.1876, "masked_lm_loss": 5.451}, 5.451),
    ({"loss": 5.9, "lm_accuracy": 0.12, "lm_loss": 5.8}, 5.8),
    ({"loss": 5.7, "perplexity": 300.0, "forward_perplexity": 290.0, "backward_perplexity": 310.0},
     math.log(300.0)),
]


@pytest.mark.parametrize("logged, expected", LOGGED, ids=["bert", "ltr", "gpt_or_xlnet", "elmo"])
def test_the_lm_loss_leaves_out_the_next_sentence_loss(logged, expected):
    assert lm_loss(logged) == pytest.approx(expected, rel=1e-12)


def test_a_log_without_an_lm_loss_has_none():
    assert lm_loss({"examples_per_second": 200.0}) is None


# An ordering whose arm has no score: told apart by whether the arm ran and the gate failed every run of it.
PREMISE = Ordering("bert", "random")
INFORMATIVE = {"ner": {"informative": True}}


def test_an_arm_the_gate_failed_every_run_of_is_marked_gated_not_unrun():
    def values(arm, task):
        return [[40.0], [41.0]] if arm == "random" else []

    found = check(None, PREMISE, "ner", values, lambda arm, task: arm == "bert", "cpu", INFORMATIVE)
    assert (found["status"], found["gated"]) == ("gated", ["bert"])
    found = check(None, PREMISE, "ner", values, lambda arm, task: False, "cpu", INFORMATIVE)
    assert (found["status"], found["gated"]) == ("not_run", [])


def test_gated_means_every_run_failed_and_at_least_one_ran():
    budget = Budget.from_json({"flops": 1.0, "steps": {"bert": 10}, "step_flops": {"bert": 0.1}, "scale": 1.0,
                               "equal_steps": None, "equal_runs": [], "predicted_seconds": {}, "warmup_steps": 1})
    failed, scored = {"score": None, "attempts": [{"score": 20.9}]}, {"score": 37.1}
    arm = Arm("bert")
    assert arm_gated(arm, "ner", budget, {("bert", "ner", arm.variant): {0: [failed, failed]}})
    assert not arm_gated(arm, "ner", budget, {("bert", "ner", arm.variant): {0: [failed], 1: [scored]}})
    assert not arm_gated(arm, "ner", budget, {})


def test_the_gate_record_keeps_each_failed_runs_last_scores_and_every_rate_tried():
    """Fine-tuning outcomes as `Protocol.fine_tune` returns them (the cpu tier's NER, 2026-12-01)."""
    def attempt(rate, score, train_score):
        return {"learning_rate": rate, "score": score, "train_score": train_score}

    failed = {"score": None, "trained": False, "attempts": [attempt(1e-3, 25.1, 26.4), attempt(3e-4, 20.3, 21.4)]}
    retried = {"score": 41.0, "learning_rate": 3e-4,
               "attempts": [attempt(1e-3, 30.0, 40.0), attempt(3e-4, 41.0, 73.5)]}
    first = {"score": 43.5, "learning_rate": 1e-3, "attempts": [attempt(1e-3, 43.5, 88.5)]}
    assert gate_record([failed, failed]) == {"failed_runs": 2, "failed_scores": [[20.3, 21.4], [20.3, 21.4]],
                                             "learning_rates": [3e-4, 1e-3], "retried_runs": 2}
    assert gate_record([retried, first]) == {"failed_runs": 0, "failed_scores": [], "learning_rates": [3e-4, 1e-3],
                                             "retried_runs": 1}
