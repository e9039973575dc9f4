"""The budget tiers of `compare.py`: one protocol, three sizes.

- `tiny`: seconds of pretraining, for CI: every system, the FLOP count, the
  selection (a grid of one rate), the gate (at that rate the left-to-right
  systems learn their 20 sentences, the masked LMs do not), the resume and the
  report; its pretraining runs are too short to repay tracing graphs, so `run_pretraining` executes
  its `tf.function`s eagerly (fine-tuning's LSTMs step slower eagerly than
  their tracing costs: 3.7 s a step for `ltr_bilstm`).
- `cpu`: aimed at an hour on a 2-core machine (docs/comparisons.md gives what
  it took), spent where published small-budget
  work expects effects to show (`comparisons.papers`): 2 layers of 64, batches
  of 32 sequences (a CPU step costs the same per sequence at any of these
  batches, and a small model leaves the unigram plateau after a number of
  updates, not of sequences), two
  pretraining seeds a system, the learning rate of every arm chosen on a slice
  of its task's train subset, CPU-sized subsets of the token-level tasks (where
  its testable orderings are; SST-2 and word order were uninformative at this
  size and took more than half its fine-tuning time), 8,000 pieces (whole
  words for most of NER's entities: 2,000 split them into three pieces on
  average), and the systems those orderings need: BERT's Table 5 and 6
  systems and random initialisation. XLNet (whose orderings but one are not
  testable at this scale), OpenAI GPT and ELMo join with `--systems`: with
  the former 1,500 s allowance GPT and ELMo pretrained 346 and 101 steps, and
  their runs took 43% of that 91-minute example's run-minutes.
- `cpu_long`: the cpu tier with three times its pretraining steps and SST-2
  and word order, hours on the same machine: pretraining that has left the
  unigram plateau well behind (docs/comparisons.md gives its predicted cost).
- `gpu`: the same protocol larger, adding MRPC and a small SQuAD split by article.
"""

import dataclasses

from contracts.comparison import Size


@dataclasses.dataclass(frozen=True)
class TaskSize:
    """A task's fixed subset (train and dev examples), its fine-tuning epochs and,
    where the tier's grid does not suit it, its own learning rates."""

    train: int
    dev: int
    epochs: float = 3.0
    learning_rates: tuple = None  # None: the tier's


@dataclasses.dataclass(frozen=True)
class Tier:
    """Sizes and budgets of one tier.

    Pretraining: `vocab_size` for every family, `seq_length` tokens,
    `predictions` targets per sequence, `batch` sequences a step, peak
    `learning_rate` reached after `warmup_share` of the reference's steps (the
    same number of steps in every run, at most half of it: `Budget.warmup`),
    `pretraining_seeds` runs of every system. The FLOP budget of every system is
    `reference_steps` steps of the `reference` system; each system's
    `calibration_steps` timed steps predict its time, and when all would take
    longer than `pretraining_seconds` the budget shrinks to fit.

    Fine-tuning: each arm's learning rate is chosen from `learning_rates` (or
    the task's own, `TaskSize.learning_rates`) on a `selection_fraction` slice
    of each task's train subset (the first pretraining seed, the first
    fine-tuning seed); then `seeds` fine-tuning runs per pretraining seed on
    the whole train subset, scored on dev.
    `tasks` (name -> `TaskSize`; those whose data is given run), `systems`
    the systems it runs by default (None: every declared one),
    `feature_layers` the feature-based NER rows (Table 7) on the reference
    system, `lstm_units` the task BiLSTM of every feature-based arm (BERT's
    rows and ELMo's every task), the equal-steps view on `steps_task`.
    """

    name: str
    vocab_size: int
    seq_length: int
    predictions: int
    batch: int
    size: Size
    small_size: Size
    reference_steps: int
    learning_rate: float
    calibration_steps: int
    pretraining_seconds: float
    pretraining_seeds: int
    seeds: int
    learning_rates: tuple
    fine_tuning_batch: int
    tasks: dict
    steps_task: str
    feature_layers: tuple = ()
    selection_fraction: float = 0.2
    reference: str = "bert"
    max_modules: int = None  # built-in corpus: at most this many modules (and as many held out)
    held_out_batches: int = 100
    lstm_units: int = 64  # the feature-based BiLSTM, per direction
    eager: tuple = ()  # the runners whose tf.functions run eagerly (no tracing)
    concurrent_runs: int = 1  # runs at once, the cores shared (`comparisons.workers`)
    warmup_share: float = 0.1
    systems: tuple = None

    def rates(self, task):
        """The learning rates selection tries on `task`."""
        return self.tasks[task].learning_rates or self.learning_rates


TIERS = {
    "tiny": Tier(
        name="tiny", vocab_size=400, seq_length=32, predictions=5, batch=8,
        size=Size(layers=2, hidden=16, heads=2, intermediate=64, dropout=0.0),
        small_size=Size(layers=1, hidden=16, heads=2, intermediate=64, dropout=0.0),
        reference_steps=4, learning_rate=1e-3, calibration_steps=1, pretraining_seconds=600,
        pretraining_seeds=2, seeds=1, learning_rates=(1e-3,), fine_tuning_batch=8, max_modules=12,
        held_out_batches=2, tasks={"word_order": TaskSize(20, 24, epochs=15.0)},
        steps_task="word_order", lstm_units=8, eager=("run_pretraining",), concurrent_runs=2),
    "cpu": Tier(
        name="cpu", vocab_size=8000, seq_length=80, predictions=12, batch=32,
        size=Size(layers=2, hidden=64, heads=2, intermediate=256, dropout=0.0),
        small_size=Size(layers=1, hidden=64, heads=2, intermediate=256, dropout=0.0),
        reference_steps=2000, learning_rate=2e-3, calibration_steps=5, pretraining_seconds=1200,
        pretraining_seeds=2, seeds=2, learning_rates=(3e-4, 1e-3, 3e-3), fine_tuning_batch=32,
        tasks={"pos": TaskSize(1000, 500, epochs=5.0),
               "ner": TaskSize(1000, 500, epochs=10.0, learning_rates=(3e-4, 1e-3))},
        steps_task="pos", feature_layers=("embeddings", "last", "weighted_sum_all"), concurrent_runs=2,
        systems=("bert", "no_nsp", "ltr", "ltr_bilstm", "bert_small", "random")),
    "gpu": Tier(
        name="gpu", vocab_size=8000, seq_length=128, predictions=20, batch=128,
        size=Size(layers=6, hidden=256, heads=4, intermediate=1024, dropout=0.1),
        small_size=Size(layers=3, hidden=256, heads=4, intermediate=1024, dropout=0.1),
        reference_steps=20000, learning_rate=5e-4, calibration_steps=20, pretraining_seconds=6 * 3600,
        pretraining_seeds=3, seeds=3, learning_rates=(3e-5, 1e-4, 3e-4), fine_tuning_batch=32,
        tasks={"pos": TaskSize(14000, 3250), "ner": TaskSize(14000, 3250), "sts_b": TaskSize(5749, 1500),
               "sst_2": TaskSize(20000, 872), "mrpc": TaskSize(3668, 408),
               "word_order": TaskSize(5000, 1000), "next_sentence": TaskSize(2000, 500),
               "squad": TaskSize(8000, 2500, epochs=2.0)},
        steps_task="pos",
        feature_layers=("embeddings", "second_to_last", "last", "sum_last_four", "concat_last_four",
                        "weighted_sum_all"),
        lstm_units=256),
}
TIERS["cpu_long"] = dataclasses.replace(
    TIERS["cpu"], name="cpu_long", reference_steps=6000, pretraining_seconds=8 * 3600,
    systems=(*TIERS["cpu"].systems, "gpt", "elmo"),
    tasks={**TIERS["cpu"].tasks, "sst_2": TaskSize(2000, 500, epochs=4.0),
           "word_order": TaskSize(1500, 500, epochs=5.0)})
