"""XLNet pretraining task: the permutation language model with partial
prediction, on records of `create_pretraining_data.py --model=xlnet` (or the original's).

Each example's loss is the mean cross-entropy over its `num_predict` targets
(the original averages over the targets of the whole batch; see
`tasks/pretraining/losses.py` for why per example). The factorisation orders
are drawn in tf.data (`families.xlnet.pretraining.permutation`), new every epoch;
evaluation reads the records once, in order, with the orders of the first epoch.

With `config.mem_len > 0` the segment-recurrence memory is carried from one
training step to the next (`initial_state`/`forward`), as the original's
`train_gpu.py`: row k of a batch continues row k of the batch before, so each
row attends to the cached hidden states of its previous record's first
`reuse_len` tokens; the first step sees zeros. The trainer saves the memory
with each checkpoint (the original did not), so a resumed run continues it.
Evaluation reads records without memory. `mem_len=0`: every batch starts
without `mems`.
"""

import keras
import tensorflow as tf
from keras import ops

from data.pretraining.corpus_reader import expand_input_files
from families.xlnet.pretrainer import XLNetPretrainer
from families.xlnet.pretraining.dataset import xlnet_pretraining_dataset
from tasks.pretraining.losses import _weighted_mean, masked_lm_losses
from training.task import Task

# Dataset features -> the backbone's input names.
_INPUTS = {"input_k": "input_ids", "seg_id": "segment_ids", "perm_mask": "perm_mask",
           "target_mapping": "target_mapping"}


def check_lengths(seq_len, reuse_len, perm_size, num_predict, mem_len):
    """Raises ValueError naming every flag (the original's names) whose value
    cannot train, before any work: a record is the reuse part and the rest,
    each permuted in `perm_size` blocks (`families.xlnet.pretraining.permutation`)."""
    problems = []
    if seq_len < 1:
        problems.append(f"--seq_len={seq_len} must be >= 1")
    elif not 0 <= reuse_len < seq_len:
        problems.append(f"--reuse_len={reuse_len} must be in [0, --seq_len={seq_len})")
    elif perm_size < 1 or reuse_len % perm_size or (seq_len - reuse_len) % perm_size:
        problems.append(f"--perm_size={perm_size} must divide --reuse_len={reuse_len} and "
                        f"--seq_len - --reuse_len = {seq_len - reuse_len}")
    if not 1 <= num_predict <= seq_len:
        problems.append(f"--num_predict={num_predict} must be in [1, --seq_len={seq_len}]")
    if mem_len < 0:
        problems.append(f"--mem_len={mem_len} must be >= 0 (0: no memory)")
    if problems:
        raise ValueError("; ".join(problems))


class XLNetPretrainingTask(Task):
    """Builds the XLNet pretrainer, reads and permutes the records, computes
    the permutation-LM loss and accuracy on the predicted positions.

    Example:
    >>> config = XLNetConfig.from_preset("xlnet_tiny").replace(mem_len=96)
    >>> task = XLNetPretrainingTask(config, "out/xlnet.tfrecord",
    ...                             seq_len=128, reuse_len=64, perm_size=32, num_predict=21)
    >>> Trainer(task, RunOptions(output_dir="/tmp/xlnet")).train(16, 1000, OptimizerConfig())
    """

    def __init__(self, config, input_file, seq_len, reuse_len, perm_size, num_predict,
                 init_checkpoint=None, seed=12345):
        check_lengths(seq_len, reuse_len, perm_size, num_predict, config.mem_len)
        self.config = config.replace(reuse_len=reuse_len)  # The memory caches the reused part.
        self.input_files = expand_input_files(input_file)  # Fails now on a glob matching nothing.
        self.seq_len, self.reuse_len, self.perm_size, self.num_predict = seq_len, reuse_len, perm_size, num_predict
        self.init_checkpoint = init_checkpoint
        self.seed = seed

    def build_model(self):
        return XLNetPretrainer(self.config)

    def initial_state(self, batch_size):
        """Zero memory, n_layer x [batch_size, mem_len, d_model], as the
        original's first step; None without memory."""
        c = self.config
        if not c.mem_len:
            return None
        return [tf.zeros((batch_size, c.mem_len, c.d_model)) for _ in range(c.n_layer)]

    def forward(self, model, features, state, training):
        outputs = model(features, mems=state, training=training)
        return outputs, outputs.get("new_mems")

    def build_dataset(self, split, batch_size, training, input_context=None):
        """Training repeats over the files (their order shuffled each pass) in
        full batches; evaluation reads every record once, the last batch partial."""
        dataset = xlnet_pretraining_dataset(
            self.input_files, batch_size, self.seq_len, self.reuse_len, self.perm_size,
            self.num_predict, seed=self.seed, shuffle_files=training, repeat=training,
            drop_remainder=training)
        return dataset.map(self._features_and_labels)

    def input_name(self, split):
        return ", ".join(self.input_files)

    @staticmethod
    def _features_and_labels(batch):
        return ({name: batch[feature] for feature, name in _INPUTS.items()},
                {name: batch[name] for name in ("target", "target_mask")})

    def loss(self, labels, outputs):
        per_target = masked_lm_losses(outputs["lm_logits"], labels["target"])
        return _weighted_mean(per_target, labels["target_mask"])

    def build_metrics(self):
        return [keras.metrics.SparseCategoricalAccuracy("lm_accuracy"), keras.metrics.Mean("lm_loss")]

    def update_metrics(self, metrics, labels, outputs):
        weights = ops.cast(labels["target_mask"] > 0, "float32")
        metrics[0].update_state(labels["target"], outputs["lm_logits"], weights)
        metrics[1].update_state(masked_lm_losses(outputs["lm_logits"], labels["target"]), weights)
