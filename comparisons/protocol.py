"""The comparison's protocol, one unit of work at a time, each recorded in the
ledger when it ends (`comparisons.ledger`), so a rerun after a kill redoes
nothing finished:

1. data: the corpus and its held-out part, each family's vocabulary learnt
   from the corpus at the tier's size, each kind of pretraining records (and
   of the held-out text), each task's fixed subset;
2. calibration: a few timed steps of every pretrained system;
3. budget: the steps each system gets (`comparisons.budget`), kept in the
   ledger so that a resumed run keeps them;
4. pretraining of every system (`run_pretraining.py`), checkpoints along the
   way, then its loss on the held-out records;
5. fine-tuning: every system on every task for every seed, the feature-based
   NER rows on the reference system, and checkpoints along the way on the
   steps task.

Data writers run as child processes (`demo.progress.run_stage`), the runners
in their long-lived processes (`comparisons.workers`): the command lines are
the ones a user would type, written at the top of each log.
"""

import json
import os
import shutil
import time

from comparisons import budget as budgets
from comparisons.arms import FEATURES, FINAL, STEP, Run, checkpoint_runs
from comparisons.corpus import stdlib, user_corpus, wikitext, write_documents
from comparisons.ledger import Ledger
from comparisons.papers import COMPARISONS
from contracts.comparison import Shape
from contracts.registry import text_side_for, text_side_type
from demo.pretrained import read_key_values
from demo.progress import logged_steps, run_stage
from contracts import registry


def read_results(path):
    """{key: float} of a runner's results file (`key = value` lines, or JSON)."""
    if not path.endswith(".json"):
        return read_key_values(path)
    with open(path, encoding="utf-8") as f:
        return {k: float(v) for k, v in json.load(f).items() if isinstance(v, (int, float))}


class Protocol:
    """Runs the comparison of `systems` (`comparisons.systems.System`, by
    name) on `tasks` (`comparisons.downstream.Downstream`) under `tier`.

    Example:
    >>> with Workers(ROOT, env) as workers:
    ...     entries = Protocol(TIERS["tiny"], Sources(), "runs/compare", systems, TASKS, workers, ROOT, env,
    ...                        Progress()).run()
    """

    def __init__(self, tier, sources, output_dir, systems, tasks, workers, root, env, progress, seed=12345,
                 fine_tuning_workers=None):
        self.tier, self.sources, self.output_dir = tier, sources, output_dir
        self.systems = {s.name: s for s in systems}
        self.tasks = {t.name: t for t in tasks}
        self.workers, self.root, self.env, self.progress = workers, root, env, progress
        self.fine_tuning_workers = fine_tuning_workers or workers
        self.seed = seed
        self.ledger = Ledger(output_dir)
        self.task_flags = {}  # task -> runner flags of its data, for the tasks whose data is given
        self.budget = None

    # --- Paths ----------------------------------------------------------------

    def path(self, *parts):
        return os.path.join(self.output_dir, *parts)

    def vocabulary_request(self, family):
        """Where `family`'s vocabulary builder is asked to write."""
        return self.path("data", "vocab", family, text_side_type(family).model_file_name)

    def vocabulary(self, family):
        """`family`'s vocabulary file, as its builder named it."""
        system = next(s for s in self.systems.values() if s.family == family)
        return system.vocabulary.model_file(self.vocabulary_request(family))

    def records(self, name, held_out=False):
        return self.path("data", "records", f"{name}{'.held_out' if held_out else ''}.tfrecord")

    def pretrained(self, name):
        return self.path("pretraining", name)

    def config_file(self, name, stage="pretraining"):
        family = registry.family(self.systems[name].family)
        return self.path("configs", stage, name, family.config_file)

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

    def stage(self, unit, argv):
        """A data writer or vocabulary builder as a child process."""
        return run_stage(unit, argv, self.log(unit), self.root, self.env)

    def runner(self, unit, runner, argv, batch_size=None, workers=None):
        return (workers or self.workers).run(runner, argv, self.log(unit), unit, batch_size)

    # --- 1. Data ----------------------------------------------------------------

    def documents(self):
        if self.sources.corpus:
            return list(user_corpus(self.sources.corpus))
        return [*stdlib(self.tier.max_modules), *wikitext(self.sources.wikitext_files)]

    def write_corpus(self):
        documents = self.documents()
        return {part: write_documents(self.path("data", f"{part}.txt"), [d for d in documents if d.held == held])
                for part, held in (("corpus", False), ("held_out", True))}

    def families(self):
        return list(dict.fromkeys(s.family for s in self.systems.values()))

    def shape(self, family):
        """The tier's `Shape` with `family`'s vocabulary size as learnt."""
        size = self.ledger.get(f"vocabulary/{family}")["result"]["tokens"]
        t = self.tier
        return Shape(t.seq_length, t.predictions, t.batch, size)

    def learn_vocabulary(self, family):
        unit = f"vocabulary/{family}"
        system = next(s for s in self.systems.values() if s.family == family)
        path = self.vocabulary_request(family)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self.stage(unit, system.vocabulary.command(self.path("data", "corpus.txt"), self.tier.vocab_size, path))
        tokens = text_side_for(family, self.vocabulary(family),
                               text_side_type(family).do_lower_case_default).special_ids.vocab_size
        return {"tokens": tokens, "requested": self.tier.vocab_size}

    def write_records(self, system, held_out):
        unit = f"records/{system.records}{'/held_out' if held_out else ''}"
        corpus = self.path("data", "held_out.txt" if held_out else "corpus.txt")
        output = self.records(system.records, held_out)
        os.makedirs(os.path.dirname(output), exist_ok=True)
        self.stage(unit, system.write_records(corpus, self.vocabulary(system.family), self.shape(system.family),
                                              self.seed, output))
        return {}

    def prepare_task(self, task):
        size = self.tier.tasks[task.name]
        prepared = task.prepare(self.sources, self.path("data", "tasks", task.name), size.train, size.dev,
                                self.seed, self.path("data", "held_out.txt"))
        if prepared is None:
            return {"available": False}
        flags, counts = prepared
        return {"available": True, "flags": flags, "counts": counts}

    def data_units(self):
        """[(unit, work)] of the data phase, in order."""
        units = [("corpus", self.write_corpus)]
        units += [(f"vocabulary/{family}", lambda f=family: self.learn_vocabulary(f)) for family in self.families()]
        pretrained = [s for s in self.systems.values() if s.pretrains]
        for system in {s.records: s for s in pretrained}.values():
            units += [(f"records/{system.records}{'/held_out' if held_out else ''}",
                       lambda s=system, h=held_out: self.write_records(s, h)) for held_out in (False, True)]
        units += [(f"task_data/{name}", lambda t=task: self.prepare_task(t)) for name, task in self.tasks.items()]
        return units

    def prepare_data(self):
        units = self.data_units()
        for name, _ in units:
            self.progress.plan(name, "data")
        for name, work in units:
            result = self.unit(name, work)
            if name.startswith("task_data/") and result["available"]:
                self.task_flags[name.split("/")[1]] = result["flags"]

    # --- 2-4. Pretraining ---------------------------------------------------------------

    def config(self, system):
        """`system`'s encoder config at its size of the tier."""
        size = self.tier.small_size if system.size == "small" else self.tier.size
        return system.config(size, self.shape(system.family))

    def write_config(self, name):
        path = self.config_file(name)
        self.config(self.systems[name]).to_json_file(path)
        return path

    def pretraining_argv(self, name, output_dir):
        system = self.systems[name]
        shape = self.shape(system.family)
        return [*system.pretraining_flags(self.write_config(name), shape, self.vocabulary(system.family)),
                f"--input_file={self.records(system.records)}", f"--output_dir={output_dir}", "--do_train",
                f"--train_batch_size={shape.batch}", f"--learning_rate={self.tier.learning_rate}",
                f"--seed={self.seed}"]

    def calibrate(self, name):
        unit, scratch = f"calibration/{name}", self.path("calibration", name)
        shutil.rmtree(scratch, ignore_errors=True)
        steps = 1 + self.tier.calibration_steps  # the first traces the step
        self.runner(unit, "run_pretraining", [
            *self.pretraining_argv(name, scratch), f"--num_train_steps={steps}", "--num_warmup_steps=1",
            "--log_steps=1", f"--save_checkpoints_steps={steps}"], self.tier.batch)
        shutil.rmtree(scratch, ignore_errors=True)
        return {"seconds_per_step": budgets.seconds_per_step(logged_steps(self.log(unit)), self.tier.batch)}

    def plan_budget(self):
        pretrained = [s for s in self.systems.values() if s.pretrains]
        flops = {s.name: s.flops(self.config(s), self.shape(s.family)) for s in pretrained}
        seconds = None
        if self.tier.calibration_steps:
            seconds = {s.name: self.ledger.get(f"calibration/{s.name}")["result"]["seconds_per_step"]
                       for s in pretrained}
        return budgets.plan_budget(pretrained, flops, self.tier.reference, self.tier.reference_steps,
                                   self.tier.checkpoints, seconds, self.tier.pretraining_seconds).to_json()

    def pretrain(self, name):
        steps = self.budget.steps[name]
        unit = f"pretraining/{name}"
        output_dir = self.pretrained(name)
        saved = budgets.checkpoint_steps(self.budget, name)
        seconds = self.runner(unit, "run_pretraining", [
            *self.pretraining_argv(name, output_dir), f"--num_train_steps={steps}",
            f"--num_warmup_steps={max(1, steps // 10)}", f"--save_checkpoints_steps={self.budget.interval}",
            f"--keep_checkpoint_max={len(saved) + 1}", f"--log_steps={max(1, steps // 20)}"], self.tier.batch)
        family = self.systems[name].family
        for source, file_name in zip(text_side_type(family).vocabulary_files(self.vocabulary(family)),
                                     text_side_type(family).vocabulary_file_names()):
            shutil.copyfile(source, os.path.join(output_dir, file_name))  # `--init_checkpoint` alone then does
        return {"steps": steps, "seconds": seconds, "checkpoints": saved,
                "last_logged": logged_steps(self.log(unit)).get(steps, {})}

    def score_held_out(self, name):
        unit = f"held_out/{name}"
        output_dir = os.path.join(self.pretrained(name), "held_out")
        system = self.systems[name]
        self.runner(unit, "run_pretraining", [
            *system.pretraining_flags(self.config_file(name), self.shape(system.family),
                                      self.vocabulary(system.family)),
            f"--input_file={self.records(system.records, held_out=True)}",
            f"--init_checkpoint={self.pretrained(name)}", f"--output_dir={output_dir}", "--do_eval",
            f"--eval_batch_size={self.tier.batch}", f"--max_eval_steps={self.tier.held_out_batches}"])
        return read_results(os.path.join(output_dir, "eval_results.txt"))

    def pretraining_phase(self):
        pretrained = [s.name for s in self.systems.values() if s.pretrains]
        if self.tier.calibration_steps:
            for name in pretrained:
                self.progress.plan(f"calibration/{name}", "calibration")
            for name in pretrained:
                self.unit(f"calibration/{name}", lambda n=name: self.calibrate(n))
        self.progress.plan("budget", "budget", 0.0)
        self.budget = budgets.Budget.from_json(self.unit("budget", self.plan_budget))
        for name in pretrained:
            self.progress.plan(f"pretraining/{name}", "pretraining", self.budget.predicted_seconds.get(name))
            self.progress.plan(f"held_out/{name}", "held_out")
        for run in self.fine_tuning_runs():
            self.progress.plan(run.unit, f"fine_tuning/{run.task}/{run.kind}")
        for name in pretrained:
            self.unit(f"pretraining/{name}", lambda n=name: self.pretrain(n))
            self.unit(f"held_out/{name}", lambda n=name: self.score_held_out(n))

    # --- 5. Fine-tuning ------------------------------------------------------------------

    def fine_tuning_runs(self):
        """Every run, seed by seed (so that a partial run has every system's first
        seed): each system on each task; the tier's feature-based NER rows on
        the reference system; the checkpoints the papers' arms name, on the
        steps task."""
        tier = self.tier
        pretrained = [name for name, system in self.systems.items() if system.pretrains]
        arms = [arm for comparison in COMPARISONS for arm, _ in comparison.arms]
        runs = []
        for seed in range(tier.seeds):
            for task in self.task_flags:
                runs += [Run(name, task, FINAL, None, seed) for name, system in self.systems.items()
                         if self.tasks[task].kind in registry.family(system.family).tasks]
            if "ner" in self.task_flags and tier.reference in self.systems:
                runs += [Run(tier.reference, "ner", FEATURES, layers, seed) for layers in tier.feature_layers]
        if tier.steps_task in self.task_flags:
            runs += checkpoint_runs(arms, self.budget, pretrained, tier.steps_task, tier.seeds)
        return runs

    def fine_tuning_config(self, name):
        """The config file fine-tuning builds `name` from, or None (the checkpoint's)."""
        system = self.systems[name]
        if system.weights_of is None:
            return self.write_config(name)
        if system.fine_tuning_config is None:
            return None
        family = registry.family(system.family)
        pretrained = family.config_type.from_json_file(
            os.path.join(self.pretrained(system.weights_of), family.config_file))
        path = self.config_file(name, "fine_tuning")
        system.fine_tuning_config(pretrained).to_json_file(path)
        return path

    def fine_tune(self, run):
        system, task = self.systems[run.system], self.tasks[run.task]
        size = self.tier.tasks[run.task]
        output_dir = self.path("fine_tuning", run.system, run.task, run.variant, f"seed_{run.seed}")
        argv = [*self.task_flags[run.task], *task.extra_flags(self.tier.seq_length), "--do_train", "--do_eval",
                f"--output_dir={output_dir}", f"--max_seq_length={self.tier.seq_length}",
                f"--train_batch_size={self.tier.fine_tuning_batch}",
                f"{task.eval_batch_flag}={4 * self.tier.fine_tuning_batch}",
                f"--num_train_epochs={size.epochs}", f"--seed={self.seed + run.seed}",
                "--keep_checkpoint_max=1", "--save_checkpoints_steps=1000000"]
        learning_rate = size.learning_rate
        if system.weights_of:
            checkpoint = self.pretrained(system.weights_of)
            if run.kind == STEP:
                checkpoint = os.path.join(checkpoint, f"ckpt-{run.detail}")
            argv.append(f"--init_checkpoint={checkpoint}")
        else:
            argv.append(f"{registry.family(system.family).config_type.vocab_file_flag}="
                        f"{self.vocabulary(system.family)}")
        config = self.fine_tuning_config(run.system)
        if config:
            argv.append(f"--bert_config_file={config}")
        if run.kind == FEATURES:
            argv += ["--feature_based", f"--feature_layers={run.detail}", f"--lstm_units={self.tier.lstm_units}"]
        if run.kind == FEATURES or registry.family(system.family).feature_based:
            learning_rate = size.feature_learning_rate
        argv.append(f"--learning_rate={learning_rate}")
        self.runner(run.unit, task.runner, argv, self.tier.fine_tuning_batch, self.fine_tuning_workers)
        results = read_results(os.path.join(output_dir, task.results_file))
        return {"score": results[task.metric] * task.scale, "results": results}

    def fine_tuning_phase(self):
        self.workers.stop("run_pretraining")  # its memory back for the fine-tuning runs
        self.fine_tuning_workers.run_all([lambda r=run: self.unit(r.unit, lambda: self.fine_tune(r))
                                          for run in self.fine_tuning_runs()])

    def run(self):
        """Every unit not yet in the ledger; returns the ledger's entries."""
        self.prepare_data()
        self.pretraining_phase()
        self.fine_tuning_phase()
        return self.ledger.entries()
