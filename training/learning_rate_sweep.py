"""The paper's fine-tuning protocol: try several learning rates (and, for
unstable small tasks, several random restarts: different data order and head
initialisation), keep the run that is best on dev.

A single run (one learning rate, one restart) works in `output_dir` itself,
as the original does. A sweep gives each run its own directory
`output_dir/lr_<lr>_restart_<k>` (so a killed sweep resumes run by run),
writes `sweep_results.txt` with every run's dev metrics, and copies the best
run's `eval_results.txt` and prediction files up into `output_dir`.
"""

import dataclasses
import math
import os
import shutil

from absl import logging

from utils.files import atomic_output

SWEEP_RESULTS = "sweep_results.txt"


@dataclasses.dataclass(frozen=True)
class SweepRun:
    learning_rate: float
    restart: int
    seed: int
    output_dir: str


def plan_runs(output_dir, learning_rates, num_restarts, seed):
    """Every (learning rate, restart) run; restart k of every rate uses seed + k."""
    if not learning_rates:
        raise ValueError("need at least one learning rate")
    if num_restarts < 1:
        raise ValueError(f"num_restarts must be >= 1, got {num_restarts}")
    if len(learning_rates) == 1 and num_restarts == 1:
        return [SweepRun(learning_rates[0], 0, seed, output_dir)]
    return [SweepRun(lr, k, seed + k, os.path.join(output_dir, f"lr_{lr:g}_restart_{k}"))
            for lr in learning_rates for k in range(num_restarts)]


def best_run(scores):
    """Index of the highest score (the first on ties); NaN never wins."""
    finite = [(-math.inf if math.isnan(s) else s) for s in scores]
    return max(range(len(finite)), key=lambda i: (finite[i], -i))


def write_sweep_results(output_dir, runs, results, scores, best):
    """A TSV of every run (rate, restart, score, its dev metrics, directory), best marked."""
    names = sorted({k for r in results for k in r})
    with atomic_output(os.path.join(output_dir, SWEEP_RESULTS)) as f:
        f.write("\t".join(["learning_rate", "restart", "seed", "score", *names, "output_dir",
                           "best"]) + "\n")
        for i, (run, result, score) in enumerate(zip(runs, results, scores)):
            row = [f"{run.learning_rate:g}", run.restart, run.seed, score,
                   *(result.get(n, "") for n in names), run.output_dir, int(i == best)]
            f.write("\t".join(str(v) for v in row) + "\n")


def promote(files, output_dir):
    """Copies the best run's result files into `output_dir`; returns the new paths."""
    copied = []
    for path in files:
        target = os.path.join(output_dir, os.path.basename(path))
        with open(path, "rb") as src, atomic_output(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
        copied.append(target)
    return copied


def run_sweep(runs, run_one, score):
    """Runs each `SweepRun` with `run_one(run) -> RunResult`; for a sweep,
    summarises and promotes the best by `score(results)`. Returns the best
    run and its `RunResult`."""
    outcomes = []
    for run in runs:
        logging.info("Run %s", run)
        outcomes.append(run_one(run))
    if len(runs) == 1:
        return runs[0], outcomes[0]
    if not all(o.results for o in outcomes):
        raise ValueError("choosing the best of several runs needs --do_eval")
    scores = [score(o.results) for o in outcomes]
    best = best_run(scores)
    output_dir = os.path.dirname(runs[best].output_dir)
    write_sweep_results(output_dir, runs, [o.results for o in outcomes], scores, best)
    promote(outcomes[best].files, output_dir)
    logging.info("Best on dev: %s (score %.4f)", runs[best], scores[best])
    return runs[best], outcomes[best]
