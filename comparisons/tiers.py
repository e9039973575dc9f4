"""The budget tiers of `compare.py`: one protocol, three sizes.

- `tiny`: seconds of pretraining, for CI: every system, the FLOP count, the
  resume and the report, nothing learnt; its runs are too short to repay
  tracing graphs, so the runners execute their `tf.function`s eagerly.
- `cpu`: about 40 minutes on a 2-core machine (the example in the docs: 36): the main job's model
  (2 layers of 64, sequences of 48, batch 128, lr 2e-3: 4,000 steps take its
  held-out masked-LM accuracy to 0.315), 1,500 steps of it as the budget, 3
  fine-tuning seeds with two runs side by side, the CPU-sized tasks (no CoLA,
  RTE, WNLI, which models this small leave at chance). With 4 layers of 64 at
  sequence 64 the budget had to shrink to 0.31 of its 1,500 steps to fit, and
  every score stayed at chance.
- `gpu`: the same protocol larger, adding MRPC and a small SQuAD split by article.
"""

import dataclasses

from contracts.comparison import Size


@dataclasses.dataclass(frozen=True)
class TaskSize:
    """A task's fixed subset (train and dev examples) and fine-tuning schedule;
    a BiLSTM over frozen features (BERT's feature-based rows, ELMo's every
    task) learns at `feature_learning_rate`."""

    train: int
    dev: int
    epochs: float = 3.0
    learning_rate: float = 2e-4
    feature_learning_rate: float = 1e-3


@dataclasses.dataclass(frozen=True)
class Tier:
    """Sizes and budgets of one tier.

    Pretraining: `vocab_size` for every family, `seq_length` tokens,
    `predictions` targets per sequence, `batch` sequences a step, peak
    `learning_rate` with a tenth of the steps warming up. The FLOP budget of
    every system is `reference_steps` steps of the `reference` system; each
    system's `calibration_steps` timed steps predict its time, and when all
    would take longer than `pretraining_seconds` the budget shrinks to fit.
    Checkpoints fall every 1/`checkpoints` of the fewest steps a system gets,
    for the equal-steps view and the pretraining-steps figure, both on
    `steps_task`. Fine-tuning: `seeds` runs per task, `tasks` (name ->
    `TaskSize`; those whose data is given run), `feature_layers` the
    feature-based NER rows (Table 7) on the reference system.
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
    checkpoints: int
    seeds: int
    fine_tuning_batch: int
    tasks: dict
    steps_task: str
    feature_layers: tuple = ()
    reference: str = "bert"
    max_modules: int = None  # built-in corpus: at most this many modules (and as many held out)
    held_out_batches: int = 100
    lstm_units: int = 64  # the feature-based BiLSTM, per direction
    eager: bool = False  # the runners' tf.functions run eagerly (no tracing)
    concurrent_runs: int = 1  # fine-tuning runs at once, the cores shared (`comparisons.workers`)


TIERS = {
    "tiny": Tier(
        name="tiny", vocab_size=400, seq_length=32, predictions=5, batch=8,
        size=Size(layers=2, hidden=16, heads=2, intermediate=64, dropout=0.0),
        small_size=Size(layers=1, hidden=16, heads=2, intermediate=64, dropout=0.0),
        reference_steps=4, learning_rate=1e-3, calibration_steps=1, pretraining_seconds=600,
        checkpoints=2, seeds=2, fine_tuning_batch=8, max_modules=12, held_out_batches=2,
        tasks={"word_order": TaskSize(16, 24, epochs=1.0, learning_rate=1e-3)},
        steps_task="word_order", lstm_units=8, eager=True, concurrent_runs=2),
    "cpu": Tier(
        name="cpu", vocab_size=2000, seq_length=48, predictions=7, batch=128,
        size=Size(layers=2, hidden=64, heads=2, intermediate=256, dropout=0.0),
        small_size=Size(layers=1, hidden=64, heads=2, intermediate=256, dropout=0.0),
        reference_steps=1500, learning_rate=2e-3, calibration_steps=5, pretraining_seconds=780,
        checkpoints=2, seeds=3, fine_tuning_batch=32,
        tasks={"ner": TaskSize(800, 400, epochs=6.0, learning_rate=1e-3, feature_learning_rate=3e-3),
               "sts_b": TaskSize(1000, 400),
               "sst_2": TaskSize(1500, 400, epochs=2.0),
               "word_order": TaskSize(160, 800, epochs=10.0, learning_rate=1e-4),
               "next_sentence": TaskSize(600, 400)},
        steps_task="word_order", feature_layers=("embeddings", "last", "weighted_sum_all"), concurrent_runs=2),
    "gpu": Tier(
        name="gpu", vocab_size=8000, seq_length=128, predictions=20, batch=128,
        size=Size(layers=6, hidden=256, heads=4, intermediate=1024, dropout=0.1),
        small_size=Size(layers=3, hidden=256, heads=4, intermediate=1024, dropout=0.1),
        reference_steps=20000, learning_rate=5e-4, calibration_steps=20, pretraining_seconds=6 * 3600,
        checkpoints=4, seeds=5, fine_tuning_batch=32,
        tasks={"ner": TaskSize(14000, 3250, learning_rate=1e-4), "sts_b": TaskSize(5749, 1500, learning_rate=1e-4),
               "sst_2": TaskSize(20000, 872, learning_rate=1e-4), "mrpc": TaskSize(3668, 408, learning_rate=1e-4),
               "word_order": TaskSize(160, 1000, epochs=10.0, learning_rate=5e-5),
               "next_sentence": TaskSize(2000, 500, learning_rate=1e-4),
               "squad": TaskSize(8000, 2500, epochs=2.0, learning_rate=1e-4)},
        steps_task="sst_2",
        feature_layers=("embeddings", "second_to_last", "last", "sum_last_four", "concat_last_four",
                        "weighted_sum_all"),
        lstm_units=256),
}
