"""`results.json`: everything the comparison measured, gathered from the
ledger: the setup, each system's budget and held-out loss, every fine-tuning
score by seed, and each ordering's verdict."""

import math

from comparisons import verdict
from comparisons.arms import FINAL, resolve
from comparisons.budget import Budget
from comparisons.papers import COMPARISONS


def held_out_loss(results):
    """A pretraining evaluation's LM loss: its `*lm_loss` entry (BERT's
    `masked_lm_loss`, XLNet's and GPT's `lm_loss`), or the log of its
    `perplexity` (ELMo's, both directions' mean), nats per predicted token."""
    losses = [v for k, v in results.items() if k.endswith("lm_loss")]
    if not losses and "perplexity" in results:
        losses = [math.log(results["perplexity"])]
    return losses[0] if losses else None


def scores_by_run(entries):
    """{(system, task, variant): [score of each seed, in seed order]}."""
    found = {}
    for unit, entry in entries.items():
        if unit.startswith("fine_tuning/"):
            _, system, task, variant, seed = unit.split("/")
            found.setdefault((system, task, variant), []).append((int(seed.split("_")[1]), entry["result"]["score"]))
    return {key: [score for _, score in sorted(values)] for key, values in found.items()}


def arm_values(arm, task, budget, scores, entries):
    """The scores of `arm` on `task` (the held-out loss for `held_out_lm`), or []."""
    system, kind, detail = resolve(arm, budget)
    if task == "held_out_lm":
        entry = entries.get(f"held_out/{system}")
        loss = held_out_loss(entry["result"]) if entry and kind == FINAL else None
        return [] if loss is None else [loss]
    variant = kind if kind == FINAL else f"{kind}_{detail}"
    return scores.get((system, task, variant), [])


def ordering_tasks(ordering, tasks):
    """Our task names an ordering is checked on (`tasks`: name -> Downstream, those run)."""
    if ordering.tasks == "all":
        return list(tasks)
    if ordering.tasks in ("token", "sentence"):
        return [name for name, task in tasks.items() if task.level == ordering.tasks]
    return [ordering.tasks] if ordering.tasks in tasks or ordering.tasks == "held_out_lm" else []


def judge_comparisons(budget, scores, entries, tasks, steps_task):
    """Each comparison's orderings, task by task: the two arms' summaries and the verdict
    (None where an arm has no scores: a system or a task left out)."""
    judged = []
    for comparison in COMPARISONS:
        checks = []
        for ordering in comparison.orderings:
            names = ordering_tasks(ordering, tasks)
            if comparison.tasks == "steps_task":
                names = [steps_task] if steps_task in tasks else []
            for task in names:
                ahead = arm_values(ordering.ahead, task, budget, scores, entries)
                behind = arm_values(ordering.behind, task, budget, scores, entries)
                check = {"ahead": ordering.ahead, "behind": ordering.behind, "task": task,
                         "higher_is_better": ordering.higher_is_better, "mark": None}
                if ahead and behind:
                    a, b = verdict.Summary.of(ahead), verdict.Summary.of(behind)
                    v = verdict.judge(a, b, ordering.higher_is_better)
                    check.update(mark=v.mark, gap=v.gap, two_se=v.two_se, ahead_mean=a.mean, behind_mean=b.mean)
                checks.append(check)
        judged.append({"key": comparison.key, "title": comparison.title, "checks": checks})
    return judged


def summarise(values):
    s = verdict.Summary.of(values)
    return {"values": values, "mean": s.mean, "sd": s.sd, "se": s.se, "n": s.n}


def collect(entries, systems, tasks, tier, setup):
    """The whole of `results.json` from the ledger's `entries`; `systems` and
    `tasks` (by name) those compared, `setup` what the command line knew."""
    budget = Budget.from_json(entries["budget"]["result"])
    scores = scores_by_run(entries)
    run_tasks = {name: task for name, task in tasks.items()
                 if entries.get(f"task_data/{name}", {}).get("result", {}).get("available")}
    by_system = {}
    for name, system in systems.items():
        pretraining = entries.get(f"pretraining/{name}", {})
        held = entries.get(f"held_out/{name}", {}).get("result", {})
        by_system[name] = {
            "title": system.title, "family": system.family, "size": system.size,
            "weights_of": system.weights_of, "steps": budget.steps.get(name),
            "step_flops": budget.step_flops.get(name),
            "flops": budget.steps[name] * budget.step_flops[name] if name in budget.steps else None,
            "pretraining_seconds": pretraining.get("seconds"),
            "predicted_seconds": budget.predicted_seconds.get(name),
            "held_out": held, "held_out_lm_loss": held_out_loss(held) if held else None}
    return {
        **setup, "tier": tier.name, "budget": budget.to_json(), "systems": by_system,
        "corpus": entries["corpus"]["result"],
        "vocabulary": {unit.split("/")[1]: e["result"] for unit, e in entries.items()
                       if unit.startswith("vocabulary/")},
        "tasks": {name: {"title": task.title, "metric": task.metric_title, "level": task.level,
                         **entries.get(f"task_data/{name}", {}).get("result", {"available": False})}
                  for name, task in tasks.items()},
        "scores": {f"{system}/{task}/{variant}": summarise(values)
                   for (system, task, variant), values in sorted(scores.items())},
        "comparisons": judge_comparisons(budget, scores, entries, run_tasks, tier.steps_task),
        "wall_seconds": {unit: e["seconds"] for unit, e in entries.items()},
    }
