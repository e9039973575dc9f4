"""`results.json`: everything the comparison measured, gathered from the
ledger: the setup, each system's budget and held-out loss per pretraining
seed, each task's baselines, truncation and whether it is informative, every
arm's scores by pretraining and fine-tuning seed with its chosen learning
rate, and each ordering's test and mark."""

import math
import statistics

from comparisons import verdict
from comparisons.arms import EQUAL, FINAL, Arm
from comparisons.budget import Budget
from comparisons.papers import COMPARISONS

HELD_OUT = "held_out_lm"


def lm_loss(results):
    """The LM loss of a pretraining evaluation or logged step, nats per predicted
    token: its `*lm_loss` entry (BERT's `masked_lm_loss`, without the
    next-sentence loss its total adds; XLNet's and GPT's `lm_loss`), or the log
    of its `perplexity` (ELMo's, both directions' mean)."""
    losses = [v for k, v in results.items() if k.endswith("lm_loss")]
    if not losses and "perplexity" in results:
        losses = [math.log(results["perplexity"])]
    return losses[0] if losses else None


def fine_tuning_runs(entries):
    """{(system, task, variant): {pretraining seed: [run results in fine-tuning seed order]}}."""
    found = {}
    for unit, entry in entries.items():
        if unit.startswith("fine_tuning/"):
            _, system, task, variant, seed = unit.split("/")
            pretraining, fine_tuning = (int(s) for s in seed.removeprefix("seed_").split("_"))
            found.setdefault((system, task, variant), {}).setdefault(pretraining, []).append(
                (fine_tuning, entry["result"]))
    return {key: {p: [r for _, r in sorted(runs, key=lambda x: x[0])] for p, runs in sorted(by_seed.items())}
            for key, by_seed in found.items()}


def run_key(arm, task, budget):
    """The (system, task, variant) whose runs stand for `arm` (an `@equal` arm whose
    system's own run is as long as the equal-steps runs reads that run's)."""
    if arm.kind == EQUAL and arm.system not in budget.equal_runs:
        arm = Arm(arm.system)
    return arm.system, task, arm.variant


def arm_units(arm, task, budget, runs, entries, systems):
    """The units of `arm` (an `Arm`) on `task`: one list of scores per pretraining seed
    (the random floor: one per run, each its own initialisation); the
    held-out loss for `held_out_lm`. Failed runs (the gate) are left out."""
    if task == HELD_OUT:
        if arm.kind != FINAL:
            return []
        losses = [lm_loss(e["result"]) for unit, e in sorted(entries.items())
                  if unit.startswith(f"held_out/{arm.system}/")]
        return [[loss] for loss in losses if loss is not None]
    by_seed = runs.get(run_key(arm, task, budget), {})
    units = [[r["score"] for r in results if r.get("score") is not None] for results in by_seed.values()]
    if systems.get(arm.system, {}).get("weights_of") is None:  # the floor: each run is an initialisation
        units = [[score] for unit in units for score in unit]
    return [unit for unit in units if unit]


def ordering_tasks(ordering, tasks, steps_task):
    """Our task names an ordering is checked on (`tasks`: name -> Downstream, those run)."""
    if ordering.tasks == "all":
        return list(tasks)
    if ordering.tasks in ("token", "sentence"):
        return [name for name, task in tasks.items() if task.level == ordering.tasks]
    if ordering.tasks == "steps_task":
        return [steps_task] if steps_task in tasks else []
    return [ordering.tasks] if ordering.tasks in tasks or ordering.tasks == HELD_OUT else []


def informative(task_result):
    """Whether some pretrained system clears the task's best non-neural baseline."""
    best = max((b["score"] for b in task_result["baselines"] if not math.isnan(b["score"])), default=-math.inf)
    return any(mean > best for mean in task_result["pretrained_means"])


def arm_gated(arm, task, budget, runs):
    """Whether `arm` (an `Arm`) ran on `task` and the gate failed every run of it."""
    by_seed = runs.get(run_key(arm, task, budget), {})
    return bool(by_seed) and all(r.get("score") is None for results in by_seed.values() for r in results)


def check(comparison, ordering, task, values, gated, tier, task_results):
    """One ordering on one task, before Holm: its status and, when tested, its
    Welch test; an arm without a score either did not run or the gate failed
    every run of it (`gated(arm, task)`), and the two are told apart."""
    found = {"ahead": ordering.ahead, "behind": ordering.behind, "task": task,
             "higher_is_better": ordering.higher_is_better, "status": "tested", "mark": None}
    ahead, behind = values(ordering.ahead, task), values(ordering.behind, task)
    if ahead and behind:
        a, b = verdict.Summary.of(ahead), verdict.Summary.of(behind)
        test = verdict.welch(a, b, ordering.higher_is_better)
        found.update(ahead_mean=a.mean, behind_mean=b.mean, ahead_units=a.n, behind_units=b.n, gap=test.gap,
                     se=test.se, df=test.df, p=test.p)
    if not ordering.testable_at(tier):
        found.update(status="not_testable", why=ordering.why_not)
    elif not ahead or not behind:
        failed = [arm for arm, units in ((ordering.ahead, ahead), (ordering.behind, behind))
                  if not units and gated(arm, task)]
        found.update(status="gated" if failed else "not_run", gated=failed)
    elif task != HELD_OUT and not task_results[task]["informative"]:
        found["status"] = "uninformative"
    return found


def judge_comparisons(values, gated, tasks, tier, steps_task, task_results):
    """Every comparison's checks; the tested ones marked after Holm's adjustment over all of them."""
    judged = []
    for comparison in COMPARISONS:
        checks = []
        for ordering in comparison.orderings:
            names = ordering_tasks(ordering, tasks, steps_task)
            if comparison.tasks == "steps_task" and ordering.tasks == "all":
                names = ordering_tasks(ordering, {n: t for n, t in tasks.items() if n == steps_task}, steps_task)
            checks += [check(comparison, ordering, task, values, gated, tier, task_results) for task in names]
        judged.append({"key": comparison.key, "title": comparison.title, "checks": checks})
    tested = [c for j in judged for c in j["checks"] if c["status"] == "tested"]
    for c, adjusted in zip(tested, verdict.holm([c["p"] for c in tested])):
        c["p_holm"] = adjusted
        c["mark"] = verdict.mark(verdict.WelchTest(c["gap"], c["se"], c["df"], c["p"]), adjusted)
    return judged, len([c for c in tested if not math.isnan(c["p"])])


def minimum_effects(tasks, runs, systems, tier_seeds, tests):
    """Per task: the pooled standard deviation of the pretrained arms' units, and the
    smallest gap a test finds with 80% power at one test's level and at the
    strictest Holm step (`tests` tests)."""
    found = {}
    for task in tasks:
        variances = []
        for (system, name, variant), by_seed in runs.items():
            if name != task or variant != FINAL or systems[system]["weights_of"] is None:
                continue
            means = [statistics.fmean([r["score"] for r in rs if r.get("score") is not None] or [math.nan])
                     for rs in by_seed.values()]
            if len(means) > 1 and not any(math.isnan(m) for m in means):
                variances.append(statistics.variance(means))
        sd = math.sqrt(statistics.fmean(variances)) if variances else math.nan
        found[task] = {"sd": sd, "mde": verdict.minimum_detectable_effect(sd, tier_seeds),
                       "mde_strictest": verdict.minimum_detectable_effect(sd, tier_seeds,
                                                                          verdict.ALPHA / max(1, tests))}
    return found


def summarise(units):
    s = verdict.Summary.of(units)
    return {"units": units, "mean": s.mean, "sd": s.sd, "n": s.n, "runs": s.runs}


def _pretraining_runs(name, entries):
    """(the pretraining units of `name`'s runs, their last logged LM losses, their held-out results)."""
    units = sorted(u for u in entries if u.startswith(f"pretraining/{name}/"))
    return (units, [lm_loss(entries[u]["result"].get("last_logged", {})) for u in units],
            [entries[u]["result"] for u in sorted(entries) if u.startswith(f"held_out/{name}/")])


def _systems(systems, budget, entries):
    found = {}
    for name, system in systems.items():
        seeds, final, held = _pretraining_runs(name, entries)
        losses = [lm_loss(h) for h in held]
        equal_seeds, equal_final, equal_held = _pretraining_runs(f"{name}@equal", entries)
        found[name] = {
            "title": system.title, "family": system.family, "size": system.size,
            "weights_of": system.weights_of, "steps": budget.steps.get(name),
            "step_flops": budget.step_flops.get(name),
            "flops": budget.steps[name] * budget.step_flops[name] if name in budget.steps else None,
            "pretraining_seconds": [entries[u]["seconds"] for u in seeds],
            "final_lm_loss": final,
            "predicted_seconds": budget.predicted_seconds.get(name),
            "held_out": held, "held_out_lm_loss": [loss for loss in losses if loss is not None],
            "equal_steps_run": {
                "steps": budget.equal_steps,
                "final_lm_loss": equal_final,
                "held_out_lm_loss": [loss for loss in map(lm_loss, equal_held) if loss is not None]}
            if equal_seeds else None,
            "unigram_prior": (entries.get(f"unigram_prior/{system.family}") or {}).get("result", {}).get("nats")}
    return found


def _tasks(tasks, entries, runs, systems):
    found = {}
    for name, task in tasks.items():
        data = entries.get(f"task_data/{name}", {}).get("result", {"available": False})
        result = {"title": task.title, "metric": task.metric_title, "level": task.level, **data}
        if data.get("available"):
            result["baselines"] = entries.get(f"baselines/{name}", {}).get("result", {}).get("baselines", [])
            result["truncation"] = entries.get(f"truncation/{name}", {}).get("result", {})
            result["pretrained_means"] = [
                statistics.fmean(s) for (system, t, variant), by_seed in runs.items()
                if t == name and variant == FINAL and systems[system]["weights_of"] is not None
                for s in [[r["score"] for rs in by_seed.values() for r in rs if r.get("score") is not None]] if s]
            result["informative"] = informative(result)
        found[name] = result
    return found


def _selection(entries):
    """{system/task/variant: {learning rate: {score, train_loss, prior_loss, trained}}}."""
    found = {}
    for unit, entry in entries.items():
        if unit.startswith("selection/"):
            _, system, task, variant, lr = unit.split("/")
            r = entry["result"]
            found.setdefault(f"{system}/{task}/{variant}", {})[lr.removeprefix("lr_")] = {
                k: r.get(k) for k in ("score", "train_loss", "prior_loss", "trained")}
    return found


def gate_record(runs):
    """What the trainability gate did to an arm's runs: how many it failed (with
    the dev and train scores of each one's last attempt) or sent to another
    rate, and every learning rate tried, so that a gated arm shows how far it got."""
    return {"failed_runs": sum(r.get("score") is None for r in runs),
            "failed_scores": [[r["attempts"][-1].get(k) for k in ("score", "train_score")]
                              for r in runs if r.get("score") is None and r.get("attempts")],
            "learning_rates": sorted({a["learning_rate"] for r in runs for a in r.get("attempts", [])}
                                     | {r["learning_rate"] for r in runs if r.get("learning_rate")}),
            "retried_runs": sum(len(r.get("attempts", [])) > 1 for r in runs)}


def collect(entries, systems, tasks, tier, setup):
    """The whole of `results.json` from the ledger's `entries`; `systems` and
    `tasks` (by name) those compared, `setup` what the command line knew."""
    budget = Budget.from_json(entries["budget"]["result"])
    runs = fine_tuning_runs(entries)
    by_system = _systems(systems, budget, entries)
    task_results = _tasks(tasks, entries, runs, by_system)
    run_tasks = {name: task for name, task in tasks.items() if task_results[name]["available"]}

    def values(arm, task):
        return arm_units(Arm.parse(arm), task, budget, runs, entries, by_system)

    def gated(arm, task):
        return task != HELD_OUT and arm_gated(Arm.parse(arm), task, budget, runs)

    judged, tests = judge_comparisons(values, gated, run_tasks, tier.name, tier.steps_task, task_results)
    scores = {}
    for (system, task, variant), by_seed in sorted(runs.items()):
        units = arm_units(Arm.from_variant(system, variant), task, budget, runs, entries, by_system)
        all_runs = [r for rs in by_seed.values() for r in rs]
        scores[f"{system}/{task}/{variant}"] = {
            **(summarise(units) if units else {"units": [], "n": 0, "runs": 0}),
            **gate_record(all_runs)}
    return {
        **setup, "tier": tier.name, "budget": budget.to_json(), "systems": by_system,
        "corpus": entries["corpus"]["result"],
        "vocabulary": {unit.split("/")[1]: e["result"] for unit, e in entries.items()
                       if unit.startswith("vocabulary/")},
        "tasks": task_results, "scores": scores, "selection": _selection(entries),
        "comparisons": judged, "tests": tests,
        "minimum_effects": minimum_effects(run_tasks, runs, by_system, tier.pretraining_seeds, tests),
        "wall_seconds": {unit: e["seconds"] for unit, e in entries.items()},
    }
