"""The comparison's protocol, one unit of work at a time, each recorded in the
ledger when it ends (`comparisons.ledger`), so a rerun after a kill redoes
nothing finished:

1. data (`comparisons.data_units`): the corpus, each family's vocabulary and
   records, each task's fixed subset, its selection slice, its non-neural
   baselines and its truncation rates;
2. calibration: a few timed steps of every pretrained system;
3. budget: the steps each system gets (`comparisons.budget`);
4. pretraining of every system, every pretraining seed (and the equal-steps
   runs), then its loss on the held-out records;
5. selection: every arm's learning rate on every task, on the slice;
6. fine-tuning: every arm, task, pretraining seed and fine-tuning seed at the
   chosen rate, through the trainability gate (`comparisons.selection`).

Data writers run as child processes (`demo.progress.run_stage`), the runners
in their long-lived processes (`comparisons.workers`): the command lines are
the ones a user would type, written at the top of each log.
"""

import json
import os
import shutil
import time

from comparisons import budget as budgets
from comparisons import selection
from comparisons.arms import EQUAL, FEATURES, FIRST, Arm, Run
from comparisons.data_units import DataUnits
from comparisons.ledger import Ledger
from comparisons.papers import COMPARISONS
from contracts import registry
from contracts.registry import text_side_type
from demo.pretrained import read_key_values
from demo.progress import logged_steps
from training.fine_tuning import TRAIN_SPLIT_PREFIX
from training.label_prior import fits, left_prior


def read_results(path):
    """{key: float} of a runner's results file (`key = value` lines, or JSON)."""
    if not path.endswith(".json"):
        return read_key_values(path)
    with open(path, encoding="utf-8") as f:
        return {k: float(v) for k, v in json.load(f).items() if isinstance(v, (int, float))}


class Protocol(DataUnits):
    """Runs the comparison of `systems` (`comparisons.systems.System`, by
    name) on `tasks` (`comparisons.downstream.Downstream`) under `tier`.

    Example:
    >>> with Workers(ROOT, env, slots=2) as workers:
    ...     entries = Protocol(TIERS["tiny"], Sources(), "runs/compare", systems, TASKS, workers, ROOT, env,
    ...                        Progress()).run()
    """

    def __init__(self, tier, sources, output_dir, systems, tasks, workers, root, env, progress, seed=12345):
        super().__init__(tier, sources, output_dir, systems, tasks, root, env, seed)
        self.workers, self.progress = workers, progress
        self.ledger = Ledger(output_dir)
        self.budget = None

    # --- Paths ----------------------------------------------------------------

    @staticmethod
    def run_name(name, equal):
        """`name`'s pretraining run as units and folders name it: `<name>@equal` for its equal-steps run."""
        return f"{name}@equal" if equal else name

    def pretrained(self, name, seed, equal=False):
        return self.path("pretraining", self.run_name(name, equal), f"seed_{seed}")

    def log(self, unit):
        return self.path("logs", unit.replace("/", "__") + ".log")

    # --- Units -----------------------------------------------------------------

    def unit(self, name, work):
        """The result of unit `name`: the ledger's, or `work()`'s, then recorded."""
        self.progress.plan(name, name.split("/")[0])
        entry = self.ledger.get(name)
        if entry is not None:
            self.progress.skip(name)
            return entry["result"]
        self.progress.begin(name)
        start = time.time()
        result = work()
        seconds = time.time() - start
        self.ledger.record(name, result, seconds)
        self.progress.end(name, seconds)
        return result

    def runner(self, unit, runner, argv, batch_size=None):
        return self.workers.run(runner, argv, self.log(unit), unit, batch_size)

    def run_units(self, units):
        """[(unit, work)], as many at once as the workers have slots."""
        self.workers.run_all([lambda u=unit, w=work: self.unit(u, w) for unit, work in units])

    # --- 2-4. Pretraining ---------------------------------------------------------------

    def config(self, system):
        """`system`'s encoder config at its size of the tier."""
        size = self.tier.small_size if system.size == "small" else self.tier.size
        return system.config(size, self.shape(system.family))

    def pretraining_argv(self, name, output_dir, seed, steps, warmup_steps):
        system = self.systems[name]
        shape = self.shape(system.family)
        return [*system.pretraining_flags(self.write_config(name), shape, self.vocabulary(system.family)),
                f"--input_file={self.records(system.records)}", f"--output_dir={output_dir}", "--do_train",
                f"--train_batch_size={shape.batch}", *system.optimizer_argv(self.tier.learning_rate, warmup_steps),
                f"--seed={self.seed + seed}", f"--num_train_steps={steps}"]

    def write_config(self, name):
        path = self.config_file(name)
        self.config(self.systems[name]).to_json_file(path)
        return path

    def calibrate(self, name):
        unit, scratch = f"calibration/{name}", self.path("calibration", name)
        shutil.rmtree(scratch, ignore_errors=True)
        steps = 1 + self.tier.calibration_steps  # the first traces the step
        self.runner(unit, "run_pretraining", [
            *self.pretraining_argv(name, scratch, 0, steps, 1), "--log_steps=1", f"--save_checkpoints_steps={steps}"],
            self.tier.batch)
        shutil.rmtree(scratch, ignore_errors=True)
        return {"seconds_per_step": budgets.seconds_per_step(logged_steps(self.log(unit)), self.tier.batch)}

    def equal_systems(self):
        """The pretrained systems whose equal-steps arms this tier runs."""
        return sorted({arm.system for arm, task in self.planned_arms()
                       if arm.kind in (EQUAL, FIRST) and arm.system in self.pretrained_names()})

    def pretrained_names(self):
        return [s.name for s in self.systems.values() if s.pretrains]

    def plan_budget(self):
        pretrained = [s for s in self.systems.values() if s.pretrains]
        flops = {s.name: s.flops(self.config(s), self.shape(s.family)) for s in pretrained}
        seconds = None
        if self.tier.calibration_steps:
            seconds = {s.name: self.ledger.get(f"calibration/{s.name}")["result"]["seconds_per_step"]
                       for s in pretrained}
        # Runs go `concurrent_runs` at a time: the allowance is of wall time.
        allowance = self.tier.pretraining_seconds * self.tier.concurrent_runs
        return budgets.plan_budget(pretrained, flops, self.tier.reference, self.tier.reference_steps,
                                   self.equal_systems(), self.tier.pretraining_seeds, seconds, allowance,
                                   self.tier.warmup_share).to_json()

    def pretrain(self, name, seed, equal=False):
        steps = self.budget.equal_steps if equal else self.budget.steps[name]
        unit = f"pretraining/{self.run_name(name, equal)}/seed_{seed}"
        output_dir = self.pretrained(name, seed, equal)
        saved = sorted({steps} | ({self.budget.first} if self.is_equal_steps_run(name, equal) else set()))
        seconds = self.runner(unit, "run_pretraining", [
            *self.pretraining_argv(name, output_dir, seed, steps, self.budget.warmup(steps)),
            f"--save_checkpoints_steps={saved[0]}",
            f"--keep_checkpoint_max={len(saved) + 1}", f"--log_steps={max(1, steps // 20)}"], self.tier.batch)
        family = self.systems[name].family
        for source, file_name in zip(text_side_type(family).vocabulary_files(self.vocabulary(family)),
                                     text_side_type(family).vocabulary_file_names()):
            shutil.copyfile(source, os.path.join(output_dir, file_name))  # `--init_checkpoint` alone then does
        return {"steps": steps, "seconds": seconds, "checkpoints": saved,
                "last_logged": logged_steps(self.log(unit)).get(steps, {})}

    def is_equal_steps_run(self, name, equal):
        """Whether this run is `name`'s equal-steps run (it then saves the `@first` checkpoint too)."""
        return equal or (name in self.equal_systems() and name not in self.budget.equal_runs)

    def score_held_out(self, name, seed, equal=False):
        unit = f"held_out/{self.run_name(name, equal)}/seed_{seed}"
        output_dir = os.path.join(self.pretrained(name, seed, equal), "held_out")
        system = self.systems[name]
        self.runner(unit, "run_pretraining", [
            *system.pretraining_flags(self.config_file(name), self.shape(system.family),
                                      self.vocabulary(system.family)),
            f"--input_file={self.records(system.records, held_out=True)}",
            f"--init_checkpoint={self.pretrained(name, seed, equal)}", f"--output_dir={output_dir}", "--do_eval",
            f"--eval_batch_size={self.tier.batch}", f"--max_eval_steps={self.tier.held_out_batches}"])
        return read_results(os.path.join(output_dir, "eval_results.txt"))

    def pretraining_units(self):
        units = []
        for seed in range(self.tier.pretraining_seeds):
            for name in self.pretrained_names():
                units.append((f"pretraining/{name}/seed_{seed}", lambda n=name, s=seed: self.pretrain(n, s)))
            for name in self.budget.equal_runs:
                units.append((f"pretraining/{self.run_name(name, True)}/seed_{seed}",
                              lambda n=name, s=seed: self.pretrain(n, s, equal=True)))
        return units

    def pretraining_phase(self):
        pretrained = self.pretrained_names()
        if self.tier.calibration_steps:
            for name in pretrained:
                self.progress.plan(f"calibration/{name}", "calibration")
            self.run_units([(f"calibration/{name}", lambda n=name: self.calibrate(n)) for name in pretrained])
        self.progress.plan("budget", "budget", 0.0)
        self.budget = budgets.Budget.from_json(self.unit("budget", self.plan_budget))
        units = self.pretraining_units()
        for unit, _ in units:
            name = unit.split("/")[1]
            self.progress.plan(unit, "pretraining", self.budget.predicted_seconds.get(name.split("@")[0]))
        self.run_units(units)
        # The equal-steps runs too: whether each left the unigram plateau shows in the report.
        self.run_units([(f"held_out/{self.run_name(name, equal)}/seed_{seed}",
                         lambda n=name, s=seed, e=equal: self.score_held_out(n, s, e))
                        for seed in range(self.tier.pretraining_seeds)
                        for name, equal in [*((n, False) for n in pretrained),
                                            *((n, True) for n in self.budget.equal_runs)]])

    # --- 5-6. Selection and fine-tuning -------------------------------------------------------

    def planned_arms(self):
        """[(Arm, task)] this tier fine-tunes: every system on every task its family
        runs; the feature-based NER rows of the reference; the arms of the
        papers' orderings testable at this tier (the equal-steps view on the
        steps task)."""
        tier, planned = self.tier, []
        for task in self.task_flags:
            planned += [(Arm(name), task) for name, system in self.systems.items()
                        if self.tasks[task].kind in registry.family(system.family).tasks]
        if "ner" in self.task_flags and tier.reference in self.systems:
            planned += [(Arm(tier.reference, FEATURES, layers), "ner") for layers in tier.feature_layers]
        if tier.steps_task in self.task_flags:
            for comparison in COMPARISONS:
                if comparison.tasks != "steps_task":
                    continue
                for ordering in comparison.orderings:
                    if ordering.testable_at(tier.name):
                        for arm in (Arm.parse(ordering.ahead), Arm.parse(ordering.behind)):
                            if arm.system in self.systems and (arm, tier.steps_task) not in planned:
                                planned.append((arm, tier.steps_task))
        return planned

    def runs_of(self, arm, task):
        """The fine-tuning runs of `arm` on `task`: every pretraining seed x fine-tuning seed
        (the random floor: as many runs, each its own initialisation)."""
        return [Run(arm, task, p, f) for p in range(self.tier.pretraining_seeds) for f in range(self.tier.seeds)]

    def checkpoint(self, arm, pretraining_seed):
        """The `--init_checkpoint` of `arm` (None: random initialisation)."""
        system = self.systems[arm.system]
        if system.weights_of is None:
            return None
        equal = arm.kind in (EQUAL, FIRST) and system.weights_of in self.budget.equal_runs
        directory = self.pretrained(system.weights_of, pretraining_seed, equal)
        return os.path.join(directory, f"ckpt-{self.budget.first}") if arm.kind == FIRST else directory

    def fine_tuning_argv(self, run, learning_rate, data_flags, output_dir):
        system, task = self.systems[run.system], self.tasks[run.task]
        size = self.tier.tasks[run.task]
        family = registry.family(system.family)
        argv = [*data_flags, *task.extra_flags(self.tier.seq_length), "--do_train", "--do_eval",
                f"--output_dir={output_dir}", f"--max_seq_length={self.tier.seq_length}",
                f"--train_batch_size={self.tier.fine_tuning_batch}",
                f"{task.eval_batch_flag}={4 * self.tier.fine_tuning_batch}",
                f"--num_train_epochs={size.epochs}", f"--seed={self.seed + 100 * run.pretraining + run.seed}",
                f"--learning_rate={learning_rate}", "--keep_checkpoint_max=1", "--save_checkpoints_steps=1000000"]
        if task.files.baseline is not None:
            argv.append("--eval_train")
        checkpoint = self.checkpoint(run.arm, run.pretraining)
        if checkpoint:
            argv.append(f"--init_checkpoint={checkpoint}")
        else:
            argv.append(f"{family.config_type.vocab_file_flag}={self.vocabulary(system.family)}")
        config = self.fine_tuning_config(run.system, run.pretraining)
        if config:
            argv.append(f"--bert_config_file={config}")
        if run.arm.kind == FEATURES:
            argv += ["--feature_based", f"--feature_layers={run.arm.layers}"]
        if run.arm.kind == FEATURES or family.feature_based:
            argv.append(f"--lstm_units={self.tier.lstm_units}")
        return argv

    def fine_tuning_config(self, name, pretraining_seed):
        """The config file fine-tuning builds `name` from, or None (the checkpoint's)."""
        system = self.systems[name]
        if system.weights_of is None:
            return self.write_config(name)
        if system.fine_tuning_config is None:
            return None
        family = registry.family(system.family)
        pretrained = family.config_type.from_json_file(
            os.path.join(self.pretrained(system.weights_of, pretraining_seed), family.config_file))
        path = self.config_file(name, "fine_tuning")
        system.fine_tuning_config(pretrained).to_json_file(path)
        return path

    def train_once(self, unit, run, learning_rate, data_flags, output_dir, selecting=False):
        """One runner call; its score, losses, fit of its training data and whether it trained
        (`comparisons.selection`'s gate)."""
        task = self.tasks[run.task]
        self.runner(unit, task.runner, self.fine_tuning_argv(run, learning_rate, data_flags, output_dir),
                    self.tier.fine_tuning_batch)
        results = read_results(os.path.join(output_dir, task.results_file))
        trained = left_prior(results)
        fit = None
        if task.files.baseline is not None:
            fit = results[TRAIN_SPLIT_PREFIX + task.metric.removeprefix("eval_")] * task.scale
            trained = trained and fits(fit, self.chance(task, selecting))
        return {"learning_rate": learning_rate, "score": results[task.metric] * task.scale,
                "train_loss": results.get("train_loss"), "prior_loss": results.get("prior_loss"),
                "train_score": fit, "trained": trained, "results": results}

    def select(self, arm, task, learning_rate):
        """One learning rate of the grid on `task`'s selection slice (first seeds)."""
        run = Run(arm, task)
        unit = f"{run.selection_unit}/lr_{learning_rate:g}"
        output_dir = self.path("selection", arm.system, task, arm.variant, f"lr_{learning_rate:g}")
        return self.train_once(unit, run, learning_rate, self.selection_flags[task], output_dir, selecting=True)

    def ranking(self, arm, task):
        """The grid's learning rates that trained on the slice, best first."""
        run = Run(arm, task)
        outcomes = {}
        for learning_rate in self.tier.rates(task):
            entry = self.ledger.get(f"{run.selection_unit}/lr_{learning_rate:g}")
            outcomes[learning_rate] = entry["result"]
        return selection.ranked(outcomes)

    def fine_tune(self, run):
        """`run` at its arm's best learning rate, or the next one while the gate fails it."""
        attempts = []
        for learning_rate in self.ranking(run.arm, run.task):
            output_dir = self.path("fine_tuning", run.system, run.task, run.arm.variant,
                                   f"seed_{run.pretraining}_{run.seed}", f"lr_{learning_rate:g}")
            outcome = self.train_once(run.unit, run, learning_rate, self.task_flags[run.task], output_dir)
            attempts.append({k: outcome[k] for k in ("learning_rate", "score", "train_loss", "prior_loss",
                                                     "train_score")})
            if outcome["trained"]:
                return {**outcome, "attempts": attempts}
        return {"score": None, "trained": False, "attempts": attempts}

    def distinct_arms(self):
        """`planned_arms` less the `@equal` arms whose system's own run is the equal-steps
        run (their runs would repeat its final arm's; `comparisons.results` reads those)."""
        return [(arm, task) for arm, task in self.planned_arms()
                if not (arm.kind == EQUAL and self.systems[arm.system].weights_of not in self.budget.equal_runs)]

    def fine_tuning_phase(self):
        self.workers.stop("run_pretraining")  # its memory back for the fine-tuning runs
        arms = self.distinct_arms()
        self.run_units([(f"{Run(arm, task).selection_unit}/lr_{lr:g}",
                         lambda a=arm, t=task, r=lr: self.select(a, t, r))
                        for arm, task in arms for lr in self.tier.rates(task)])
        self.run_units([(run.unit, lambda r=run: self.fine_tune(r))
                        for arm, task in arms for run in self.runs_of(arm, task)])

    def plan_progress(self):
        """Every unit to come, so that the console can tell the time left."""
        for arm, task in self.distinct_arms():
            for lr in self.tier.rates(task):
                self.progress.plan(f"{Run(arm, task).selection_unit}/lr_{lr:g}", f"selection/{task}")
            for run in self.runs_of(arm, task):
                self.progress.plan(run.unit, f"fine_tuning/{task}/{arm.variant}")

    def run(self):
        """Every unit not yet in the ledger; returns the ledger's entries."""
        self.prepare_data(self.unit, self.progress)
        self.pretraining_phase()
        self.plan_progress()
        self.fine_tuning_phase()
        return self.ledger.entries()
