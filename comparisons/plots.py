"""The comparison's plots, each as PNG and SVG under `<output_dir>/plots/`:

- `scores`: every system's fine-tuned score on each task (mean over
  pretraining seeds, ± one standard error, each seed's mean as a dot), with
  the task's non-neural baselines as dashed lines: where a bar sits against
  its floors is the first thing to read;
- `budget`: each system's steps, FLOPs per step and pretraining wall time.
"""

import os
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

BASELINE_COLOURS = ("#c44e52", "#8172b2", "#937860")


def _save(figure, directory, name):
    os.makedirs(directory, exist_ok=True)
    paths = []
    for extension in ("png", "svg"):
        path = os.path.join(directory, f"{name}.{extension}")
        figure.savefig(path, dpi=120, bbox_inches="tight")
        paths.append(path)
    plt.close(figure)
    return paths


def scores_plot(results):
    run = [name for name, task in results["tasks"].items() if task.get("available")]
    figure, axes = plt.subplots(1, max(1, len(run)), figsize=(3.2 * max(1, len(run)), 3.8), squeeze=False)
    for axis, task in zip(axes[0], run):
        names = [n for n in results["systems"] if results["scores"].get(f"{n}/{task}/final", {}).get("n")]
        scores = [results["scores"][f"{n}/{task}/final"] for n in names]
        axis.bar(range(len(names)), [s["mean"] for s in scores],
                 yerr=[0 if s["n"] < 2 else s["sd"] / s["n"] ** 0.5 for s in scores], capsize=3, color="#4c72b0")
        for i, s in enumerate(scores):
            means = [statistics.fmean(unit) for unit in s["units"]]
            axis.plot([i] * len(means), means, "k.", markersize=3)
        for colour, baseline in zip(BASELINE_COLOURS, results["tasks"][task]["baselines"]):
            axis.axhline(baseline["score"], color=colour, linestyle="--", linewidth=1, label=baseline["name"])
        axis.set_xticks(range(len(names)), [results["systems"][n]["title"] for n in names], rotation=60,
                        ha="right", fontsize=7)
        axis.set_title(results["tasks"][task]["title"], fontsize=9)
        axis.set_ylabel(results["tasks"][task]["metric"], fontsize=8)
        if results["tasks"][task]["baselines"]:
            axis.legend(fontsize=6, loc="lower right")
    figure.suptitle(f"Fine-tuned scores against the tasks' non-neural baselines (tier {results['tier']}; "
                    "mean ± SE over pretraining seeds, dots: each seed)", fontsize=10)
    return figure


def budget_plot(results):
    names = [n for n, s in results["systems"].items() if s["steps"]]
    figure, axes = plt.subplots(1, 3, figsize=(10, 3.4))
    for axis, title, value in ((axes[0], "steps", lambda s: s["steps"]),
                               (axes[1], "FLOPs per step", lambda s: s["step_flops"]),
                               (axes[2], "pretraining wall seconds (mean of seeds)",
                                lambda s: statistics.fmean(s["pretraining_seconds"] or [0]))):
        axis.bar(range(len(names)), [value(results["systems"][n]) or 0 for n in names], color="#55a868")
        axis.set_xticks(range(len(names)), [results["systems"][n]["title"] for n in names], rotation=60,
                        ha="right", fontsize=7)
        axis.set_title(title, fontsize=9)
    figure.suptitle("Equal training FLOPs: what each system got", fontsize=10)
    return figure


def write_plots(directory, results):
    """Writes every plot; returns the paths."""
    return [*_save(scores_plot(results), directory, "scores"), *_save(budget_plot(results), directory, "budget")]
