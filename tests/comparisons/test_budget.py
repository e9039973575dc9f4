"""Equal FLOPs: the steps each system gets, the fit to the tier's time, the
checkpoints every system shares, and which run an arm of a table stands for."""

import pytest

from comparisons.arms import FEATURES, FINAL, STEP, checkpoint_runs, resolve
from comparisons.budget import checkpoint_steps, plan_budget, seconds_per_step
from contracts.comparison import System, Vocabulary

VOCABULARY = Vocabulary(lambda corpus, size, path: [])


def system(name, **kwargs):
    return System(name, name, "bert", VOCABULARY, None, records=name, **kwargs)


SYSTEMS = [system("mlm"), system("ltr"), system("small", size="small", same_steps_as="mlm")]
FLOPS = {"mlm": 100.0, "ltr": 180.0, "small": 40.0}


def test_equal_flops_give_each_system_the_whole_steps_that_fit():
    budget = plan_budget(SYSTEMS, FLOPS, "mlm", 1000, checkpoints=2)
    assert budget.flops == 100_000
    assert budget.steps == {"mlm": 1000, "ltr": 555, "small": 1000}  # 100000 / 180 = 555.6
    assert budget.scale == 1.0 and budget.predicted_seconds == {}


def test_checkpoints_every_interval_give_every_system_the_equal_steps_point():
    budget = plan_budget(SYSTEMS, FLOPS, "mlm", 1000, checkpoints=2)
    assert (budget.interval, budget.equal_steps) == (277, 554)
    assert checkpoint_steps(budget, "mlm") == [277, 554, 831, 1000]
    assert checkpoint_steps(budget, "ltr") == [277, 554, 555]


def test_a_budget_that_would_overrun_its_time_shrinks_for_every_system_alike():
    seconds = {"mlm": 0.2, "ltr": 0.5, "small": 0.1}  # 200 + 277.5 + 100 = 577.5 s at full budget
    budget = plan_budget(SYSTEMS, FLOPS, "mlm", 1000, 2, seconds, allowance=300)
    assert budget.scale == pytest.approx(300 / 577.5)
    assert budget.steps == {"mlm": 519, "ltr": 288, "small": 519}
    assert sum(budget.predicted_seconds.values()) <= 300
    assert plan_budget(SYSTEMS, FLOPS, "mlm", 1000, 2, seconds, allowance=600).scale == 1.0


def test_calibration_leaves_out_the_traced_first_step():
    logged = {1: {"examples_per_second": 2.0}, 2: {"examples_per_second": 60.0},
              3: {"examples_per_second": 64.0}, 4: {"examples_per_second": 70.0}}
    assert seconds_per_step(logged, 64) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="2 logged steps"):
        seconds_per_step({1: {"examples_per_second": 2.0}}, 64)


def test_arms_resolve_to_runs():
    budget = plan_budget(SYSTEMS, FLOPS, "mlm", 1000, checkpoints=2)
    assert resolve("mlm", budget) == ("mlm", FINAL, None)
    assert resolve("mlm@first", budget) == ("mlm", STEP, 277)
    assert resolve("mlm@equal", budget) == ("mlm", STEP, 554)
    assert resolve("ltr@equal", budget) == ("ltr", STEP, 554)
    assert resolve("mlm+concat_last_four", budget) == ("mlm", FEATURES, "concat_last_four")
    with pytest.raises(ValueError, match="@first or @equal"):
        resolve("mlm@last", budget)
    runs = checkpoint_runs(["mlm@equal", "ltr@equal", "mlm@first", "mlm"], budget, ["mlm", "ltr"], "sst_2", 2)
    assert sorted(r.unit for r in runs if r.seed == 0) == [
        "fine_tuning/ltr/sst_2/step_554/seed_0", "fine_tuning/mlm/sst_2/step_277/seed_0",
        "fine_tuning/mlm/sst_2/step_554/seed_0"]


def test_a_checkpoint_at_the_last_step_is_the_final_run():
    budget = plan_budget([system("a"), system("b")], {"a": 10.0, "b": 10.0}, "a", 4, checkpoints=1)
    assert resolve("a@equal", budget) == ("a", FINAL, None)
