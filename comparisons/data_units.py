"""The comparison's data phase, unit by unit: the corpus (lower-cased, the
comparison's one casing policy), each family's vocabulary learnt from it,
the held-out loss of each family's LM at word frequencies alone (the
unigram prior), each kind of pretraining records (and of the held-out text), each task's
fixed subset with its selection slice, its non-neural baselines and the share
of its examples each family's tokenizer cuts at the tier's length."""

import dataclasses
import os
import random

from comparisons import baselines, corpus, unigram_prior
from comparisons.truncation import truncated_share
from contracts import registry
from contracts.comparison import Shape
from contracts.registry import text_side_for, text_side_type
from demo.progress import run_stage


PRIOR_LINES = 10_000  # lines of the corpus (and of the held-out text) the unigram prior counts


class DataUnits:
    """Paths and data units of a comparison under `output_dir` (a base of `Protocol`)."""

    def __init__(self, tier, sources, output_dir, systems, tasks, root, env, seed):
        self.tier, self.sources, self.output_dir = tier, sources, output_dir
        self.systems = {s.name: s for s in systems}
        self.tasks = {t.name: t for t in tasks}
        self.root, self.env, self.seed = root, env, seed
        self.task_flags = {}  # task -> runner flags of its data, for the tasks whose data is given
        self.selection_flags = {}  # the same, of its selection slice
        self._chances = {}  # (task, selecting) -> `chance`

    def path(self, *parts):
        return os.path.join(self.output_dir, *parts)

    def vocabulary_request(self, family):
        """Where `family`'s vocabulary builder is asked to write."""
        return self.path("data", "vocab", family, text_side_type(family).model_file_name)

    def declared_vocabulary(self, family):
        """How `family` learns its vocabulary (`contracts.comparison.Vocabulary`), as its systems declare it."""
        return next(s for s in self.systems.values() if s.family == family).vocabulary

    def vocabulary(self, family):
        """`family`'s vocabulary file, as its builder named it."""
        return self.declared_vocabulary(family).model_file(self.vocabulary_request(family))

    def records(self, name, held_out=False):
        return self.path("data", "records", f"{name}{'.held_out' if held_out else ''}.tfrecord")

    def config_file(self, name, stage="pretraining"):
        family = registry.family(self.systems[name].family)
        return self.path("configs", stage, name, family.config_file)

    def families(self):
        return list(dict.fromkeys(s.family for s in self.systems.values()))

    def shape(self, family):
        """The tier's `Shape` with `family`'s vocabulary size as learnt."""
        size = self.ledger.get(f"vocabulary/{family}")["result"]["tokens"]
        t = self.tier
        return Shape(t.seq_length, t.predictions, t.batch, size)

    def stage(self, unit, argv):
        """A data writer or vocabulary builder as a child process."""
        return run_stage(unit, argv, self.log(unit), self.root, self.env)

    # --- Units ----------------------------------------------------------------

    def documents(self):
        if self.sources.corpus:
            return list(corpus.user_corpus(self.sources.corpus))
        given = [*corpus.wikitext(self.sources.wikitext_files),
                 *corpus.task_text(self.tier.tasks, self.sources.glue_data_dir, self.sources.conll_data_dir)]
        return given or list(corpus.stdlib(self.tier.max_modules))

    def write_corpus(self):
        """The corpus and the held-out text, documents in a seeded order: the
        sources come one after another (WikiText, then each task's text), and the
        record writers shuffle only within a window of documents."""
        documents, dropped = corpus.drop_held_out_sentences(self.documents())
        random.Random(self.seed).shuffle(documents)
        return {**{part: corpus.write_documents(self.path("data", f"{part}.txt"),
                                                [d for d in documents if d.held == held], lower=True)
                   for part, held in (("corpus", False), ("held_out", True))},
                "dropped_sentences": dropped}

    def learn_vocabulary(self, family):
        unit = f"vocabulary/{family}"
        path = self.vocabulary_request(family)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self.stage(unit, self.declared_vocabulary(family).command(self.path("data", "corpus.txt"),
                                                                  self.tier.vocab_size, path))
        tokens = text_side_for(family, self.vocabulary(family), True).special_ids.vocab_size
        return {"tokens": tokens, "requested": self.tier.vocab_size}

    def unigram_prior(self, family):
        """The held-out loss of `family`'s LM had it learnt word frequencies only
        (`comparisons.unigram_prior`), over the first `PRIOR_LINES` corpus lines."""
        declared, vocabulary = self.declared_vocabulary(family), self.vocabulary(family)
        if declared.targets is not None:
            targets = declared.targets(vocabulary)
        else:
            targets = text_side_for(family, vocabulary, True).encode_batch
        return {"nats": unigram_prior.unigram_cross_entropy(
            unigram_prior.text_ids(self.path("data", "corpus.txt"), targets, PRIOR_LINES),
            unigram_prior.text_ids(self.path("data", "held_out.txt"), targets, PRIOR_LINES),
            self.shape(family).vocab_size)}

    def write_records(self, system, held_out):
        unit = f"records/{system.records}{'/held_out' if held_out else ''}"
        text = self.path("data", "held_out.txt" if held_out else "corpus.txt")
        output = self.records(system.records, held_out)
        os.makedirs(os.path.dirname(output), exist_ok=True)
        self.stage(unit, system.write_records(text, self.vocabulary(system.family), self.shape(system.family),
                                              self.seed, output))
        return {}

    def prepare_task(self, task):
        """The task's subset (lower-cased), its selection slice, and their runner flags."""
        size = self.tier.tasks[task.name]
        directory = self.path("data", "tasks", task.name)
        prepared = task.prepare(self.sources, directory, size.train, size.dev, self.seed,
                                self.path("data", "held_out.txt"))
        if prepared is None:
            return {"available": False}
        flags, counts = prepared
        for split in ("train", "dev"):
            task.files.lower(os.path.join(directory, split + task.files.extension))
        selection_dir = os.path.join(directory, "selection")
        selection = task.files.split(directory, selection_dir, self.tier.selection_fraction, self.seed)
        return {"available": True, "flags": flags, "counts": counts,
                "selection_flags": [flag.replace(directory, selection_dir) for flag in flags],
                "selection_counts": selection}

    def score_baselines(self, task):
        directory = self.path("data", "tasks", task.name)
        if task.files.baseline is None:
            return {"baselines": []}
        found = baselines.baselines_for(task.files.baseline, os.path.join(directory, "train" + task.files.extension),
                                        os.path.join(directory, "dev" + task.files.extension),
                                        **task.files.baseline_options())
        return {"baselines": [dataclasses.asdict(b) for b in found]}

    def chance(self, task, selecting=False):
        """The constant prediction's score on the train file `task`'s runs train on (`selecting`:
        its selection slice's), the floor of the gate's fit (`comparisons.baselines.chance`)."""
        key = (task.name, selecting)
        if key not in self._chances:
            directory = self.path("data", "tasks", task.name, *(("selection",) if selecting else ()))
            self._chances[key] = baselines.chance(task.files.baseline,
                                                  os.path.join(directory, "train" + task.files.extension),
                                                  **task.files.baseline_options())
        return self._chances[key]

    def truncation(self, task):
        """{family: share of dev examples longer than the tier's sequence} for `task`."""
        directory = self.path("data", "tasks", task.name)
        return {family: truncated_share(task, directory, text_side_for(family, self.vocabulary(family), True),
                                        self.tier.seq_length)
                for family in self.families()}

    def data_units(self):
        """[(unit, work)] of the data phase, in order."""
        units = [("corpus", self.write_corpus)]
        units += [(f"vocabulary/{family}", lambda f=family: self.learn_vocabulary(f)) for family in self.families()]
        units += [(f"unigram_prior/{family}", lambda f=family: self.unigram_prior(f)) for family in self.families()
                  if any(s.pretrains for s in self.systems.values() if s.family == family)]
        pretrained = [s for s in self.systems.values() if s.pretrains]
        for system in {s.records: s for s in pretrained}.values():
            units += [(f"records/{system.records}{'/held_out' if held_out else ''}",
                       lambda s=system, h=held_out: self.write_records(s, h)) for held_out in (False, True)]
        units += [(f"task_data/{name}", lambda t=task: self.prepare_task(t)) for name, task in self.tasks.items()]
        return units

    def task_units(self):
        """The units of each available task: its baselines and truncation rates."""
        units = []
        for name in self.task_flags:
            task = self.tasks[name]
            units += [(f"baselines/{name}", lambda t=task: self.score_baselines(t)),
                      (f"truncation/{name}", lambda t=task: self.truncation(t))]
        return units

    def prepare_data(self, unit, progress):
        units = self.data_units()
        for name, _ in units:
            progress.plan(name, "data")
        for name, work in units:
            result = unit(name, work)
            if name.startswith("task_data/") and result["available"]:
                self.task_flags[name.split("/")[1]] = result["flags"]
                self.selection_flags[name.split("/")[1]] = result["selection_flags"]
        for name, work in self.task_units():
            unit(name, work)
