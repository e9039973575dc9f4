"""GPT pretraining task: the left-to-right language model on contiguous
windows of the corpus (`create_pretraining_data.py --model=gpt`), every real token
after a window's first predicted from those before it.

Each example's loss is the mean cross-entropy over its predicted tokens (as
`families.gpt.lm_loss.next_token_loss`; the trainer then averages over
examples, so a padded last window weighs as a full one). The metrics are per
token: `lm_loss`, `perplexity` = exp(lm_loss) and `lm_accuracy`. The model
has no special rows (`n_special` 0), as the release: fine-tuning adds them.
The LM softmax runs over the BPE tokens (Hugging Face's head); the original's
pretraining code, which would say otherwise, was not released.
"""

import keras
from keras import ops

from data.pretraining import features as F
from data.pretraining.corpus_reader import expand_input_files
from families.gpt.language_model import GPTLanguageModel
from families.gpt.lm_loss import next_token_loss, next_token_losses, next_token_targets
from families.gpt.pretraining.dataset import gpt_pretraining_dataset
from training.task import Task


class Perplexity(keras.metrics.Mean):
    """exp of the weighted mean of per-token cross-entropies (nats)."""

    def result(self):
        return ops.exp(super().result())


class GPTPretrainingTask(Task):
    """Builds `GPTLanguageModel`, reads the windows, computes the LM loss.

    Example:
    >>> task = GPTPretrainingTask(GPTConfig.from_preset("gpt"), "out/gpt-*", max_seq_length=512)
    >>> Trainer(task, RunOptions(output_dir="/tmp/gpt")).train(64, 100000, OptimizerConfig(
    ...     name="adam", learning_rate=2.5e-4, num_warmup_steps=2000, schedule="cosine"))
    """

    def __init__(self, config, input_file, max_seq_length, init_checkpoint=None, seed=12345,
                 shuffle_buffer=10_000):
        if max_seq_length > config.n_ctx:
            raise ValueError(f"--max_seq_length={max_seq_length} exceeds the model's n_ctx={config.n_ctx} "
                             "(learned positions)")
        self.config = config.replace(n_special=0)
        self.input_files = expand_input_files(input_file)  # Fails now on a glob matching nothing.
        self.max_seq_length = max_seq_length
        self.init_checkpoint = init_checkpoint
        self.seed = seed
        self.shuffle_buffer = shuffle_buffer

    def build_model(self):
        return GPTLanguageModel(self.config)

    def build_dataset(self, split, batch_size, training, input_context=None):
        """Training repeats over shuffled files and windows in full batches;
        evaluation reads every window once, in order, the last batch partial."""
        dataset = gpt_pretraining_dataset(
            self.input_files, batch_size, self.max_seq_length, shuffle=training, seed=self.seed,
            repeat=training, shuffle_buffer=self.shuffle_buffer, drop_remainder=training)
        return dataset.map(lambda batch: (
            {"input_word_ids": batch[F.INPUT_IDS], "input_mask": batch[F.INPUT_MASK]}, batch))

    def input_name(self, split):
        return ", ".join(self.input_files)

    def loss(self, labels, outputs):
        return next_token_loss(outputs["lm_logits"], labels[F.INPUT_IDS], labels[F.INPUT_MASK])

    def build_metrics(self):
        return [keras.metrics.SparseCategoricalAccuracy("lm_accuracy"), keras.metrics.Mean("lm_loss"),
                Perplexity("perplexity")]

    def update_metrics(self, metrics, labels, outputs):
        targets, weights = next_token_targets(labels[F.INPUT_IDS], labels[F.INPUT_MASK])
        metrics[0].update_state(targets, outputs["lm_logits"], weights)
        losses = next_token_losses(outputs["lm_logits"], targets)
        metrics[1].update_state(losses, weights)
        metrics[2].update_state(losses, weights)
