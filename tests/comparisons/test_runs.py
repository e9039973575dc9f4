"""The fine-tuning runs the protocol plans: each system on each task its
family supports, every pretraining seed by every fine-tuning seed; the arms
of the orderings testable at the tier; an `@equal` arm read from its
system's own run where that run is the equal-steps run."""

import dataclasses
import os
import types

from comparisons.arms import EQUAL, Arm
from comparisons.budget import Budget
from comparisons.downstream import TASKS, Sources
from comparisons.protocol import Protocol
from comparisons.systems import all_systems
from comparisons.tiers import TIERS
from contracts import registry
from tests.conftest import ROOT


def protocol(tmp_path, tier, names=None, tasks=("pos",)):
    systems = [s for s in all_systems() if names is None or s.name in names]
    found = Protocol(tier, Sources(), str(tmp_path), systems, TASKS, None, ROOT, {}, None)
    found.task_flags = {task: [] for task in tasks}  # as if their data were given
    return found


def test_a_task_the_family_refuses_is_skipped(tmp_path, monkeypatch):
    # Every family runs every task today: GPT's record as if it refused question answering.
    family = registry.family
    refusing = dataclasses.replace(family("gpt"), tasks=("classification", "tagging", "multiple_choice",
                                                         "feature_extraction"))
    monkeypatch.setattr(registry, "family", lambda name: refusing if name == "gpt" else family(name))
    planned = protocol(tmp_path, TIERS["tiny"], ("gpt", "elmo"), ("squad", "ner")).planned_arms()
    assert planned == [(Arm("elmo"), "squad"), (Arm("gpt"), "ner"), (Arm("elmo"), "ner")]


def test_every_pretraining_seed_is_fine_tuned_with_every_seed(tmp_path):
    tier = dataclasses.replace(TIERS["cpu"], pretraining_seeds=2, seeds=3)
    runs = protocol(tmp_path, tier, ("bert",)).runs_of(Arm("bert"), "pos")
    assert [(r.pretraining, r.seed) for r in runs] == [(p, f) for p in range(2) for f in range(3)]
    assert len({r.unit for r in runs}) == 6


def test_the_cpu_tier_plans_the_equal_steps_arms_of_its_testable_orderings_only(tmp_path):
    planned = protocol(tmp_path, TIERS["cpu"], tasks=("pos", "ner")).planned_arms()
    steps_arms = {arm for arm, task in planned if arm.kind != "final" and task == "pos"}
    assert steps_arms == {Arm("no_nsp", EQUAL), Arm("ltr", EQUAL)}  # no_nsp@equal > ltr@equal
    assert {arm.layers for arm, task in planned if arm.kind == "features"} == {"embeddings", "last",
                                                                              "weighted_sum_all"}
    gpu = protocol(tmp_path, TIERS["gpu"], tasks=("pos",)).planned_arms()
    assert not [arm for arm, _ in gpu if arm.kind == "first"]  # LTR learns faster early: never testable


def test_an_equal_arm_whose_own_run_is_the_equal_steps_run_is_not_run_again(tmp_path):
    found = protocol(tmp_path, TIERS["cpu"], tasks=("pos",))
    found.budget = Budget(flops=1.0, steps={"no_nsp": 1000, "ltr": 500}, step_flops={}, scale=1.0,
                          equal_steps=500, equal_runs=("no_nsp",), predicted_seconds={}, warmup_steps=100)
    arms = {arm for arm, _ in found.distinct_arms() if arm.kind == EQUAL}
    assert arms == {Arm("no_nsp", EQUAL)}
    assert found.checkpoint(Arm("no_nsp", EQUAL), 1).endswith("pretraining/no_nsp@equal/seed_1")
    assert found.checkpoint(Arm("ltr", "first"), 0).endswith("pretraining/ltr/seed_0/ckpt-250")
    assert found.checkpoint(Arm("random"), 0) is None


def test_every_pretraining_run_warms_up_over_the_same_steps_at_most_half_its_own(tmp_path, monkeypatch):
    """The cpu tier's shape: the masked LM's 2,000 steps and again the LTR's 625 for the equal-steps view,
    the LTR's 625; every run's warmup a tenth of the reference's 2,000 steps, the tiny one's half of 120."""
    found = protocol(tmp_path, TIERS["cpu"], ("bert", "no_nsp", "ltr"))
    found.budget = Budget(flops=1.0, steps={"bert": 2000, "no_nsp": 2000, "ltr": 625}, step_flops={}, scale=1.0,
                          equal_steps=625, equal_runs=("no_nsp",), predicted_seconds={}, warmup_steps=200)
    vocabulary = tmp_path / "data" / "vocab" / "bert" / "vocab.txt"
    vocabulary.parent.mkdir(parents=True)
    vocabulary.write_text("[PAD]\n")
    found.ledger.record("vocabulary/bert", {"tokens": 8000}, 1.0)
    warmups = {}

    def runner(unit, name, argv, batch):
        os.makedirs(next(a.split("=", 1)[1] for a in argv if a.startswith("--output_dir=")))
        os.makedirs(os.path.dirname(found.log(unit)), exist_ok=True)
        open(found.log(unit), "w").close()
        warmups[unit] = [a for a in argv if a.startswith("--num_warmup_steps=")]

    monkeypatch.setattr(found, "runner", runner)
    for name, equal in (("no_nsp", False), ("no_nsp", True), ("ltr", False)):
        found.pretrain(name, 0, equal)
    assert set(map(tuple, warmups.values())) == {("--num_warmup_steps=200",)} and len(warmups) == 3
    assert found.budget.warmup(120) == 60 and found.budget.warmup(1) == 1


def test_a_run_the_gate_fails_is_retried_at_the_next_rate_and_never_scored(tmp_path, monkeypatch):
    found = protocol(tmp_path, TIERS["cpu"], ("bert",))
    monkeypatch.setattr(found, "ranking", lambda arm, task: [1e-3, 3e-4, 1e-4])
    trains = {1e-3: False, 3e-4: True, 1e-4: True}
    calls = []

    def train_once(unit, run, learning_rate, data_flags, output_dir):
        calls.append(learning_rate)
        return {"learning_rate": learning_rate, "score": 60.0, "train_loss": 0.5, "prior_loss": 0.69,
                "train_score": 90.0, "trained": trains[learning_rate], "results": {}}

    monkeypatch.setattr(found, "train_once", train_once)
    result = found.fine_tune(found.runs_of(Arm("bert"), "pos")[0])
    assert calls == [1e-3, 3e-4] and result["learning_rate"] == 3e-4 and len(result["attempts"]) == 2
    trains[3e-4] = trains[1e-4] = False
    failed = found.fine_tune(found.runs_of(Arm("bert"), "pos")[0])
    assert failed["score"] is None and not failed["trained"] and len(failed["attempts"]) == 3


def test_the_gate_fails_a_run_that_left_the_prior_but_did_not_fit_its_training_data(tmp_path, monkeypatch):
    """An NER run whose loss fell to 0.77 of the prior's while it found no entity on its own train file."""
    found = protocol(tmp_path, TIERS["cpu"], ("bert",), tasks=("ner",))
    directory = tmp_path / "data" / "tasks" / "ner"
    directory.mkdir(parents=True)
    (directory / "train.txt").write_text("eu NNP B-NP B-ORG\nrejects VBZ B-VP O\ngerman JJ B-NP B-MISC\n"
                                         "call NN I-NP O\nto TO B-VP O\n\n")
    train_f1 = {}

    def runner(unit, name, argv, batch):
        assert "--eval_train" in argv
        output_dir = next(a.split("=", 1)[1] for a in argv if a.startswith("--output_dir="))
        os.makedirs(output_dir)
        with open(os.path.join(output_dir, "eval_results.txt"), "w") as f:
            f.write(f"eval_f1 = 0.3\ntrain_loss = 0.86\nprior_loss = 1.12\ntrain_split_f1 = {train_f1[unit]}\n")

    monkeypatch.setattr(found, "runner", runner)
    train_f1["a"], train_f1["b"] = 0.045, 0.9
    stuck = found.train_once("a", found.runs_of(Arm("bert"), "ner")[0], 1e-3, [], str(tmp_path / "a"))
    fit = found.train_once("b", found.runs_of(Arm("bert"), "ner")[0], 1e-3, [], str(tmp_path / "b"))
    assert found.chance(found.tasks["ner"]) == 0.0  # "O" everywhere: no entity
    assert (stuck["trained"], stuck["train_score"]) == (False, 4.5)
    assert (fit["trained"], fit["train_score"], fit["score"]) == (True, 90.0, 30.0)


def test_selection_tries_a_tasks_own_learning_rates_where_it_has_them(tmp_path, monkeypatch):
    """The cpu tier's NER (10 epochs) drops the grid's 3e-3, which diverged on it for every system."""
    found = protocol(tmp_path, TIERS["cpu"], ("random",), tasks=("pos", "ner"))
    planned = []
    monkeypatch.setattr(found, "run_units", lambda units: planned.extend(unit for unit, _ in units))
    monkeypatch.setattr(found, "workers", types.SimpleNamespace(stop=lambda runner: None))
    found.fine_tuning_phase()
    selected = [unit.split("/") for unit in planned if unit.startswith("selection/")]
    rates = {task: sorted(rate for _, _, t, *_, rate in selected if t == task) for task in ("pos", "ner")}
    assert rates == {"pos": ["lr_0.0003", "lr_0.001", "lr_0.003"], "ner": ["lr_0.0003", "lr_0.001"]}
