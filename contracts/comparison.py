"""What a family declares to join `compare.py` (its record's `comparison`
module lists its `SYSTEMS`): the systems, the vocabulary each learns, and the
sizes and shape of pretraining the comparison's tier fixes for all of them.
The comparison (`comparisons/`) reads these; a family's home builds them.

A system is one row of the papers' tables: a model family, its pretraining
(records, objective, config) or none (the randomly initialised floor), or
another system's pretrained weights fine-tuned otherwise (BERT's "+ BiLSTM").
"""

import dataclasses


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
    file it wrote (default: `path`), as GPT's BPE files are named by their merges.
    `targets(path)` gives the function from lines of text to the ids the
    family's LM predicts for each, from the vocabulary file at `path` (default:
    its text side's `encode_batch`; ELMo's softmax is over words, its input characters).
    """

    command: object
    written: object = None
    targets: object = None

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
    sequences (`contracts.flops`), and `optimizer_flags(learning_rate,
    warmup_steps)` its optimizer's: each family pretrains with its original's
    (default: BERT's AdamW at the tier's peak rate, warming up over
    `warmup_steps`, linear decay). `pretrained_as` fine-tunes another
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

    def optimizer_argv(self, learning_rate, warmup_steps):
        """The pretraining optimizer's flags at the tier's peak `learning_rate`, warming up over `warmup_steps`."""
        if self.optimizer_flags is not None:
            return self.optimizer_flags(learning_rate, warmup_steps)
        return shared_optimizer(learning_rate, warmup_steps)

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


def shared_optimizer(learning_rate, warmup_steps):
    """BERT's recipe: AdamW, linear warmup over `warmup_steps` (BERT's: a fixed 10,000 of its 1M), then
    linear decay."""
    return [f"--learning_rate={learning_rate}", f"--num_warmup_steps={warmup_steps}"]
