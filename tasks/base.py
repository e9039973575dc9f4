"""The contract between a task and the shared training loop (`tasks/trainer.py`).

A task knows its data, model, loss and metrics; the trainer knows devices,
distribution, precision, checkpoints, logging and resuming. Runners
(`run_*.py`) parse flags, build one task and hand it to the trainer.
"""

import abc


class Task(abc.ABC):
    """One pretraining or fine-tuning problem.

    Datasets yield `(features, labels)` pairs of dicts of tensors. `loss`
    returns one value per example so the trainer can average over the global
    batch under any distribution strategy (and with gradient accumulation).
    """

    @abc.abstractmethod
    def build_model(self):
        """A fresh Keras model (built under the trainer's strategy scope)."""

    def initialize(self, model):
        """Load pretrained weights (e.g. `--init_checkpoint`) into a fresh model."""

    @abc.abstractmethod
    def build_dataset(self, split, batch_size, training, input_context=None):
        """`tf.data.Dataset` of (features, labels) for `split` ("train", "dev", "test")."""

    def input_name(self, split):
        """What `split` is read from, for messages: its file(s), or the split's name."""
        return f"split {split!r}"

    @abc.abstractmethod
    def loss(self, labels, outputs):
        """Per-example float32 loss [batch]; the trainer averages over the global batch."""

    def build_metrics(self):
        """Streaming Keras metrics, created under the strategy scope."""
        return []

    def update_metrics(self, metrics, labels, outputs):
        """Update the metrics from `build_metrics` with one batch."""

    def evaluate(self, predictions):
        """Metrics that need the whole split (F1 over spans, SQuAD EM/F1, MCC, ...):
        `predictions` is what the trainer's predict loop gathered. Returns a dict."""
        return {}
