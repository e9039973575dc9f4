"""`compare.py --budget=tiny` end to end, on built-in data only: killed once
pretraining has begun and run again, it finishes every unit without redoing
one that was recorded; every declared system is pretrained (or not, as
declared) with every pretraining seed, its learning rate chosen on the
selection slice, fine-tuned through the trainability gate and in the report,
whose budget is equal FLOPs; the left-to-right systems fine-tune with the
causal mask their checkpoint carries.

Slow: the slowest test of the suite (TensorFlow starts in the command and each
runner process twice; 9 systems are pretrained with 2 seeds, each selects its
rate and fine-tunes twice, traced; GPT's fine-tuning tokenizes its examples anew
for each seed, ELMo's runs a BiLSTM); it is the one test of the whole chain."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from comparisons.systems import all_systems
from tests.causality import sees_only_earlier_tokens
from tests.conftest import ROOT

ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}
KILL_AFTER = "pretraining__bert__seed_0.json"  # a pretraining run recorded, the next one under way

# The module's fixture runs the comparison twice; under a loaded host that outlasts the suite's 900 s.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


def command(output_dir, *flags):
    return [sys.executable, os.path.join(ROOT, "compare.py"), "--budget=tiny", "--shared_data_dir=",
            f"--output_dir={output_dir}", *flags]


@pytest.fixture(scope="module")
def resumed(tmp_path_factory):
    """(output_dir, {unit file: mtime} recorded when the first run was killed, the second run's output)."""
    output_dir = tmp_path_factory.mktemp("compare")
    units = output_dir / "units"
    first = subprocess.Popen(command(output_dir), cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.time() + 900
        while not (units / KILL_AFTER).exists():
            assert first.poll() is None, "the first run ended before it could be killed"
            assert time.time() < deadline
            time.sleep(0.2)
    finally:
        os.killpg(first.pid, signal.SIGKILL)  # the command and its runner processes
        first.wait()
    recorded = {p.name: p.stat().st_mtime_ns for p in units.iterdir()}
    second = subprocess.run(command(output_dir), cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=1200)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    return output_dir, recorded, second.stdout


def results(output_dir):
    with open(output_dir / "results.json", encoding="utf-8") as f:
        return json.load(f)


def test_the_resumed_run_redoes_nothing_the_killed_one_recorded(resumed):
    output_dir, recorded, output = resumed
    assert len(recorded) >= 8 and KILL_AFTER in recorded  # data, calibration, budget, a pretraining
    after = {p.name: p.stat().st_mtime_ns for p in (output_dir / "units").iterdir()}
    assert {name: after[name] for name in recorded} == recorded
    for name in recorded:
        assert f"{name[:-len('.json')].replace('__', '/')}: done in an earlier run" in output
    assert len(after) > len(recorded)


def test_every_system_is_pretrained_on_an_equal_flop_budget_and_fine_tuned_with_every_seed(resumed):
    output_dir, _, _ = resumed
    found = results(output_dir)
    budget, systems = found["budget"], found["systems"]
    assert set(systems) == {s.name for s in all_systems()}
    for name, system in systems.items():
        scores = found["scores"][f"{name}/word_order/final"]
        assert scores["failed_runs"] + scores["runs"] == 2  # 2 pretraining seeds x 1 fine-tuning seed
        assert all(0 <= v <= 100 for unit in scores["units"] for v in unit)
        assert set(found["selection"][f"{name}/word_order/final"]) == {"0.001"}
        if system["steps"] is None:
            assert system["weights_of"] in (None, "ltr")  # the floor, and + BiLSTM on LTR's weights
            continue
        assert len(system["held_out_lm_loss"]) == 2 and min(system["held_out_lm_loss"]) > 0
        if name == "bert_small":
            assert system["steps"] == systems["bert"]["steps"]  # same steps, not FLOPs
        elif system["step_flops"] > budget["flops"]:  # one step is the least a run has (ELMo's, here)
            assert system["steps"] == 1
        else:  # the whole steps that fit
            assert budget["flops"] - system["step_flops"] < system["flops"] <= budget["flops"]
    assert systems["ltr"]["step_flops"] > systems["no_nsp"]["step_flops"]  # every token predicted
    for name in budget["equal_runs"]:  # pretrained again for the equal-steps view, and scored as well
        run = systems[name]["equal_steps_run"]
        assert run["steps"] == budget["equal_steps"] and len(run["held_out_lm_loss"]) == 2
    assert budget["equal_runs"] and not [s for n, s in systems.items()
                                         if n not in budget["equal_runs"] and s["equal_steps_run"]]
    assert systems["gpt"]["step_flops"] > systems["no_nsp"]["step_flops"]


def test_the_gate_passes_some_runs_and_fails_others(resumed):
    """Both outcomes of the gate occur (the tiny tier's rates: `comparisons.tiers`), a failed run is never
    scored, and one that failed tried one rate."""
    output_dir, _, _ = resumed
    found = results(output_dir)
    outcomes = [o["trained"] for by_rate in found["selection"].values() for o in by_rate.values()]
    assert True in outcomes and False in outcomes
    for unit in (output_dir / "units").glob("fine_tuning__*.json"):
        entry = json.loads(unit.read_text(encoding="utf-8"))["result"]
        assert (entry["score"] is None) == (not entry["trained"])
        if not entry["trained"]:
            assert [a["learning_rate"] for a in entry["attempts"]] == [1e-3]  # the one rate tried


def test_report_and_plots_are_written(resumed):
    output_dir, _, _ = resumed
    report = (output_dir / "report.md").read_text(encoding="utf-8")
    for heading in ("## The tasks' floors", "## What this tier cannot show", "## Did every arm train", "## Setup",
                    "## BERT Table 5", "## BERT Table 6", "## The equal-steps view", "## XLNet against BERT"):
        assert heading in report
    checks = [c for comparison in results(output_dir)["comparisons"] for c in comparison["checks"]]
    assert {c["status"] for c in checks} <= {"tested", "not_testable", "uninformative", "gated", "not_run"}
    assert {c["mark"] for c in checks if c["status"] == "tested"} <= {"✓", "~", "✗", "?"}
    assert "majority" in report and "bigram_logistic_regression" in report  # the task's baselines
    for name in ("scores", "budget"):
        for extension in ("png", "svg"):
            assert (output_dir / "plots" / f"{name}.{extension}").stat().st_size > 1000


def test_left_to_right_systems_fine_tune_with_the_causal_mask_of_their_checkpoint(resumed):
    from checkpoints.loader import load_into
    from export.export_model import build_task_model
    from export.export_meta import read_export_meta
    output_dir, _, _ = resumed
    for name, bilstm in (("ltr", False), ("ltr_bilstm", True)):
        run = next((output_dir / "fine_tuning" / name / "word_order" / "final" / "seed_0_0").glob("lr_*"))
        meta = read_export_meta(str(run))
        assert meta.encoder_config.causal_attention and meta.encoder_config.fine_tuning_bilstm == bilstm
        model = build_task_model(meta)
        load_into(model, str(run), strict=True)
        assert sees_only_earlier_tokens(model.encoder)
    meta = read_export_meta(str(next((output_dir / "fine_tuning" / "bert" / "word_order" / "final" /
                                      "seed_0_0").glob("lr_*"))))
    assert not meta.encoder_config.causal_attention


def test_a_rerun_with_other_settings_is_refused(resumed):
    output_dir, _, _ = resumed
    done = subprocess.run(command(output_dir, "--pretraining_seeds=3"), cwd=ROOT, env=ENV, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode != 0 and "other settings (pretraining_seeds)" in done.stderr
