"""The comparison's plots, each as PNG and SVG under `<output_dir>/plots/`:

- `scores`: every system's fine-tuned score on each task (mean, ± one
  standard error over the seeds);
- `steps`: the steps task's score against pretraining FLOPs for the masked
  and the left-to-right LM, from checkpoints along the way (the paper's
  pretraining-steps figure);
- `budget`: each system's steps, FLOPs per step and pretraining wall time.
"""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from comparisons.arms import resolve  # noqa: E402
from comparisons.budget import Budget  # noqa: E402
from comparisons.results import arm_values  # noqa: E402
from comparisons.verdict import Summary  # noqa: E402

STEPS_FIGURE = (("no_nsp", "masked LM (No NSP)"), ("ltr", "left-to-right LM"))


def _save(figure, directory, name):
    os.makedirs(directory, exist_ok=True)
    paths = []
    for extension in ("png", "svg"):
        path = os.path.join(directory, f"{name}.{extension}")
        figure.savefig(path, dpi=120, bbox_inches="tight")
        paths.append(path)
    plt.close(figure)
    return paths


def scores_plot(results, scores, systems, tasks):
    run = [name for name in tasks if results["tasks"][name]["available"]]
    figure, axes = plt.subplots(1, max(1, len(run)), figsize=(3.2 * max(1, len(run)), 3.6), squeeze=False)
    for axis, task in zip(axes[0], run):
        names = [n for n in systems if scores.get((n, task, "final"))]
        summaries = [Summary.of(scores[(n, task, "final")]) for n in names]
        axis.bar(range(len(names)), [s.mean for s in summaries],
                 yerr=[0 if s.n < 2 else s.se for s in summaries], capsize=3, color="#4c72b0")
        axis.set_xticks(range(len(names)), [results["systems"][n]["title"] for n in names], rotation=60,
                        ha="right", fontsize=7)
        axis.set_title(tasks[task].title, fontsize=9)
        axis.set_ylabel(tasks[task].metric_title, fontsize=8)
    figure.suptitle(f"Fine-tuned scores (tier {results['tier']}, mean ± SE over seeds)", fontsize=10)
    return figure


def steps_plot(results, scores, entries, tasks):
    budget = Budget.from_json(results["budget"])
    task = results["settings"]["steps_task"]
    figure, axis = plt.subplots(figsize=(5, 3.6))
    for system, label in STEPS_FIGURE:
        if system not in budget.steps:
            continue
        points = []
        for arm in (f"{system}@first", f"{system}@equal", system):
            values = arm_values(arm, task, budget, scores, entries)
            _, _, step = resolve(arm, budget)
            if values:
                flops = (step or budget.steps[system]) * budget.step_flops[system]
                points.append((flops, Summary.of(values)))
        points = sorted(dict(points).items())
        if points:
            axis.errorbar([p for p, _ in points], [s.mean for _, s in points],
                          yerr=[0 if s.n < 2 else s.se for _, s in points], marker="o", capsize=3, label=label)
    axis.set_xlabel("pretraining FLOPs")
    axis.set_ylabel(f"{tasks[task].title}: {tasks[task].metric_title}" if task in tasks else task)
    axis.set_title("Score against pretraining FLOPs (checkpoints along the way)", fontsize=9)
    axis.legend(fontsize=8)
    return figure


def budget_plot(results, systems):
    names = [n for n in systems if results["systems"][n]["steps"]]
    figure, axes = plt.subplots(1, 3, figsize=(10, 3.4))
    for axis, key, title in ((axes[0], "steps", "steps"), (axes[1], "step_flops", "FLOPs per step"),
                             (axes[2], "pretraining_seconds", "pretraining wall seconds")):
        axis.bar(range(len(names)), [results["systems"][n][key] or 0 for n in names], color="#55a868")
        axis.set_xticks(range(len(names)), [results["systems"][n]["title"] for n in names], rotation=60,
                        ha="right", fontsize=7)
        axis.set_title(title, fontsize=9)
    figure.suptitle("Equal training FLOPs: what each system got", fontsize=10)
    return figure


def write_plots(directory, results, scores, entries, systems, tasks):
    """Writes every plot; returns the paths."""
    return [*_save(scores_plot(results, scores, systems, tasks), directory, "scores"),
            *_save(steps_plot(results, scores, entries, tasks), directory, "steps"),
            *_save(budget_plot(results, systems), directory, "budget")]
