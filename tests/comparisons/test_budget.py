"""Equal FLOPs: the steps each system gets, the fit to the tier's time over
every pretraining seed, the equal-steps runs, and what an arm of a table
stands for."""

import pytest

from comparisons.arms import EQUAL, FEATURES, FINAL, FIRST, Arm, Run
from comparisons.budget import Budget, plan_budget, seconds_per_step
from contracts.comparison import System, Vocabulary

VOCABULARY = Vocabulary(lambda corpus, size, path: [])


def system(name, **kwargs):
    return System(name, name, "bert", VOCABULARY, None, records=name, **kwargs)


SYSTEMS = [system("mlm"), system("ltr"), system("small", size="small", same_steps_as="mlm")]
FLOPS = {"mlm": 100.0, "ltr": 180.0, "small": 40.0}


def test_equal_flops_give_each_system_the_whole_steps_that_fit():
    budget = plan_budget(SYSTEMS, FLOPS, "mlm", 1000)
    assert budget.flops == 100_000
    assert budget.steps == {"mlm": 1000, "ltr": 555, "small": 1000}  # 100000 / 180 = 555.6
    assert budget.scale == 1.0 and budget.predicted_seconds == {}
    assert budget.equal_steps is None and budget.equal_runs == ()


def test_the_equal_steps_runs_are_as_long_as_the_shortest_of_their_systems():
    budget = plan_budget(SYSTEMS, FLOPS, "mlm", 1000, equal_systems=("mlm", "ltr"))
    assert (budget.equal_steps, budget.equal_runs, budget.first) == (555, ("mlm",), 277)


def test_every_run_warms_up_over_a_tenth_of_the_references_steps():
    assert plan_budget(SYSTEMS, FLOPS, "mlm", 1000).warmup_steps == 100
    assert plan_budget(SYSTEMS, FLOPS, "mlm", 1000, warmup_share=0.05).warmup_steps == 50


def test_a_budget_that_would_overrun_its_time_shrinks_for_every_system_alike():
    """Two seeds of every run and the equal-steps run: 2 * (200 + 277.5 + 100 + 555 * 0.2) = 1377 s."""
    seconds = {"mlm": 0.2, "ltr": 0.5, "small": 0.1}
    budget = plan_budget(SYSTEMS, FLOPS, "mlm", 1000, ("mlm", "ltr"), 2, seconds, allowance=600)
    assert budget.scale == pytest.approx(600 / 1377)
    assert budget.steps == {"mlm": 435, "ltr": 242, "small": 435}
    assert budget.equal_steps == 242 and budget.warmup_steps == 44  # a tenth of the shrunk reference's 435
    assert 2 * (sum(budget.predicted_seconds.values()) + 242 * 0.2) <= 600
    assert plan_budget(SYSTEMS, FLOPS, "mlm", 1000, ("mlm", "ltr"), 2, seconds, allowance=1400).scale == 1.0


def test_a_budget_reads_back_from_json():
    budget = plan_budget(SYSTEMS, FLOPS, "mlm", 1000, equal_systems=("mlm", "ltr"))
    assert Budget.from_json(budget.to_json()) == budget


def test_calibration_leaves_out_the_traced_first_step():
    logged = {1: {"examples_per_second": 2.0}, 2: {"examples_per_second": 60.0},
              3: {"examples_per_second": 64.0}, 4: {"examples_per_second": 70.0}}
    assert seconds_per_step(logged, 64) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="2 logged steps"):
        seconds_per_step({1: {"examples_per_second": 2.0}}, 64)


def test_arms_parse_and_name_their_runs():
    assert Arm.parse("mlm") == Arm("mlm", FINAL)
    assert Arm.parse("mlm@equal") == Arm("mlm", EQUAL) and Arm.parse("ltr@first") == Arm("ltr", FIRST)
    assert Arm.parse("mlm+concat_last_four") == Arm("mlm", FEATURES, "concat_last_four")
    with pytest.raises(ValueError, match="@equal or @first"):
        Arm.parse("mlm@last")
    for arm in ("mlm", "mlm@equal", "mlm@first", "mlm+last"):
        parsed = Arm.parse(arm)
        assert Arm.from_variant(parsed.system, parsed.variant) == parsed
    run = Run(Arm.parse("mlm+last"), "ner", pretraining=1, seed=2)
    assert run.unit == "fine_tuning/mlm/ner/features_last/seed_1_2"
    assert run.selection_unit == "selection/mlm/ner/features_last"
