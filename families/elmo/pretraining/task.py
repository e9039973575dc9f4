"""ELMo pretraining task: the forward and backward language-model losses of
the biLM over windows of `create_pretraining_data.py --model=elmo`'s records, with the
LSTM state carried from one training step to the next, as the original's
`bilm/training.py` trains.

The loss of a window (one row) is the mean over its tokens of the forward and
backward cross-entropies, halved as the original's `total_loss`: with full
windows, the trainer's mean over rows is the original's mean over the batch's
tokens, and perplexity is its exponential. The original differentiates
`total_loss * unroll_steps`: `training_loss` has that gradient (and the loss's
value, which the trainer logs). Training uses the sampled softmax
(`n_negative_samples_batch` words per direction and slice of a batch, drawn
from the records' numbers, so a resumed run draws the same) where it is
smaller than the vocabulary, else the full softmax; evaluation the full one.

State: row r of a batch continues row r of the one before (the records are
written so, for the training batch size), so each replica's rows start from
the LSTM states they ended the previous step with (`initial_state`/`forward`,
saved with each checkpoint by the trainer); the first step starts from zeros,
as the original's. Evaluation runs each batch from zeros (the shared trainer's
evaluation carries no state; the original's `test` does).
"""

import keras
import tensorflow as tf
from absl import logging
from keras import ops

from data.pretraining.corpus_reader import expand_input_files
from families.elmo.checkpoints import lm_weights
from families.elmo.checkpoints.formats import load_lm_weights
from families.elmo.pretraining import features as E
from families.elmo.pretraining.candidate_sampler import log_uniform_candidates
from families.elmo.pretraining.dataset import ROW_NUMBER, elmo_pretraining_dataset
from families.elmo.pretraining.pretrainer import ELMoPretrainer
from training.task import Task


@keras.saving.register_keras_serializable(package="bert_garden")
class Perplexity(keras.metrics.Mean):
    """exp of the mean per-token cross-entropy."""

    def result(self):
        return ops.exp(super().result())


class ELMoPretrainingTask(Task):
    """Builds the pretrainer, reads the windows, draws the sampled softmax's
    words, and reports perplexities.

    `config` holds the training options (`n_tokens_vocab` the vocabulary's
    size, `unroll_steps`, `n_negative_samples_batch`, `dropout`).

    Example:
    >>> config = ELMoConfig.from_preset("elmo_tiny").replace(n_tokens_vocab=vocab.size, unroll_steps=20)
    >>> task = ELMoPretrainingTask(config, "out/elmo.tfrecord", vocab)
    >>> Trainer(task, RunOptions(output_dir="/tmp/elmo")).train(128, 1000, AdagradConfig())
    """

    def __init__(self, config, input_file, vocab, init_checkpoint=None, seed=12345):
        if config.n_tokens_vocab != vocab.size:
            raise ValueError(f"n_tokens_vocab={config.n_tokens_vocab} but {vocab.path} holds {vocab.size} words")
        self.config = config
        self.input_files = expand_input_files(input_file)  # Fails now on a glob matching nothing.
        self.vocab = vocab
        self.unroll_steps = config.unroll_steps
        negatives = config.n_negative_samples_batch or 0
        self.num_sampled = negatives if 0 < negatives < vocab.size else None
        self.init_checkpoint = init_checkpoint
        self.seed = seed

    def build_model(self):
        return ELMoPretrainer(self.config)

    def initialize(self, model):
        """--init_checkpoint: an `lm_weights.hdf5` (the softmax, which it has
        not, starts afresh) or a checkpoint of ours, such as a run's output_dir."""
        if self.init_checkpoint and lm_weights.is_lm_weights(self.init_checkpoint):
            logging.info(load_lm_weights(model, self.init_checkpoint).summary())
        else:
            super().initialize(model)

    def initial_state(self, batch_size):
        c = self.config.lstm
        cell_dims = (c.dim, min(c.dim, c.projection_dim))
        return [[tuple(tf.zeros((batch_size, d)) for d in cell_dims) for _ in range(c.num_layers)]
                for _ in E.DIRECTIONS]

    def forward(self, model, features, state, training):
        sampled = None
        if training and self.num_sampled:
            # One draw per direction and slice, seeded by its first record's number.
            first = tf.cast(features[ROW_NUMBER][0], tf.int64)
            sampled = [log_uniform_candidates(tf.stack([tf.constant(self.seed, tf.int64), 2 * first + d]),
                                              self.num_sampled, self.vocab.size)
                       for d in range(len(E.DIRECTIONS))]
        outputs = model(features, state=state, sampled=sampled, training=training)
        return outputs, outputs["lm_state"]

    def build_dataset(self, split, batch_size, training, input_context=None):
        """Training repeats over the files (their order shuffled each pass) in
        full batches; evaluation reads every window once, the last batch partial."""
        cnn = self.config.char_cnn
        dataset = elmo_pretraining_dataset(
            self.input_files, batch_size, self.unroll_steps, self.vocab,
            max_characters=None if cnn is None else cnn.max_characters_per_token,
            shuffle_files=training, seed=self.seed, repeat=training, drop_remainder=training)
        labels = [name + suffix for _, suffix in E.DIRECTIONS for name in (E.NEXT_TOKEN_ID,)]
        return dataset.map(lambda features: (features, {name: features[name] for name in labels}))

    def input_name(self, split):
        return ", ".join(self.input_files)

    @staticmethod
    def _direction_losses(outputs):
        return [ops.mean(outputs[f"{name}_token_losses"], axis=-1) for name, _ in E.DIRECTIONS]

    def loss(self, labels, outputs):
        forward, backward = self._direction_losses(outputs)
        return 0.5 * (forward + backward)

    def training_loss(self, labels, outputs):
        """The loss, with the gradient of `unroll_steps` times it (the original's)."""
        loss = self.loss(labels, outputs)
        return self.unroll_steps * loss - ops.stop_gradient((self.unroll_steps - 1) * loss)

    def build_metrics(self):
        return [Perplexity("perplexity"), Perplexity("forward_perplexity"), Perplexity("backward_perplexity")]

    def update_metrics(self, metrics, labels, outputs):
        losses = [outputs[f"{name}_token_losses"] for name, _ in E.DIRECTIONS]
        metrics[0].update_state(0.5 * (losses[0] + losses[1]))
        metrics[1].update_state(losses[0])
        metrics[2].update_state(losses[1])
