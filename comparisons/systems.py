"""The systems the comparison pretrains and fine-tunes, as the families declare
them: each registered family whose record names a `comparison` module lists
its `SYSTEMS` there, so a family joins by declaring its pretraining in its own
home, and nothing here names one.

A system is one row of the papers' tables: a model family, its pretraining
(records, objective, config) or none (the randomly initialised floor), or
another system's pretrained weights fine-tuned otherwise (BERT's "+ BiLSTM").
"""

import dataclasses
import importlib

from families import registry


@dataclasses.dataclass(frozen=True)
class Size:
    """A model size the tier fixes for every family: layers, hidden width,
    attention heads, feed-forward width, and the dropout rate it trains with."""

    layers: int
    hidden: int
    heads: int
    intermediate: int
    dropout: float = 0.1


@dataclasses.dataclass(frozen=True)
class Shape:
    """What every system's pretraining shares: tokens per sequence, predicted
    targets per sequence (a masked or permutation LM's; a left-to-right LM
    predicts every token whatever this says), sequences per step, vocabulary size."""

    seq_length: int
    predictions: int
    batch: int
    vocab_size: int


@dataclasses.dataclass(frozen=True)
class Vocabulary:
    """How a family learns its vocabulary (its text side's file) from the corpus:
    `command(corpus, size, path)` is the argv after `python` of the script
    that writes it at `path`, or beside it; `written(path)` then names the
    file it wrote (default: `path`), as GPT's BPE files are named by their merges."""

    command: object
    written: object = None

    def model_file(self, path):
        """The file the command wrote, given the `path` it was asked for."""
        return path if self.written is None else self.written(path)


@dataclasses.dataclass(frozen=True)
class System:
    """One system of the comparison.

    `config(size, shape)` is its encoder config (the pretraining config, or the
    floor's). A pretrained system names its `records` (systems with the same
    name share one record file), `write_records(corpus, vocabulary, shape,
    seed, output)` the data writer's argv, `pretraining_flags(config_file,
    shape, vocabulary)` its model and data flags of `run_pretraining.py`, and
    `flops(config, shape)` the training FLOPs of one step of `shape.batch`
    sequences (`comparisons.flops`), and `optimizer_flags(learning_rate,
    steps)` its optimizer's: each family pretrains with its original's
    (default: BERT's AdamW at the tier's peak rate, a tenth of the steps
    warming up, linear decay). `pretrained_as` fine-tunes another
    system's weights instead; `fine_tuning_config(config)` changes the config
    fine-tuning builds (None: the checkpoint's). `size` is "main" or "small"
    (the tier's two sizes); `same_steps_as` gives it another system's steps
    rather than an equal FLOP budget (the papers' model-size table).
    """

    name: str
    title: str
    family: str
    vocabulary: Vocabulary
    config: object
    records: str = None
    write_records: object = None
    pretraining_flags: object = None
    flops: object = None
    optimizer_flags: object = None
    pretrained_as: str = None
    fine_tuning_config: object = None
    size: str = "main"
    same_steps_as: str = None

    def optimizer_argv(self, learning_rate, steps):
        """The pretraining optimizer's flags for a run of `steps` at the tier's `learning_rate`."""
        if self.optimizer_flags is not None:
            return self.optimizer_flags(learning_rate, steps)
        return shared_optimizer(learning_rate, steps)

    @property
    def pretrains(self):
        """Whether it has a pretraining run of its own."""
        return self.records is not None

    @property
    def weights_of(self):
        """The system whose pretrained weights it fine-tunes, or None (random init)."""
        if self.pretrains:
            return self.name
        return self.pretrained_as


def shared_optimizer(learning_rate, steps):
    """BERT's recipe: AdamW, linear warmup over a tenth of the steps, then linear decay."""
    return [f"--learning_rate={learning_rate}", f"--num_warmup_steps={max(1, steps // 10)}"]


def all_systems():
    """Every system the registered families declare, in registration order."""
    systems = []
    for family in registry.families():
        if family.comparison:
            systems.extend(importlib.import_module(family.comparison).SYSTEMS)
    names = [s.name for s in systems]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"systems declared twice: {repeated}")
    return tuple(systems)


def select(systems, names):
    """The systems named in `names` (all when None), in declaration order, with
    those they fine-tune or take steps from; an unknown name is an error."""
    by_name = {s.name: s for s in systems}
    if names is None:
        return tuple(systems)
    unknown = sorted(set(names) - set(by_name))
    if unknown:
        raise ValueError(f"unknown systems {unknown}; declared: {', '.join(by_name)}")
    wanted = set(names)
    for name in names:
        needed = by_name[name]
        for other in (needed.pretrained_as, needed.same_steps_as):
            if other:
                wanted.add(other)
    return tuple(s for s in systems if s.name in wanted)
