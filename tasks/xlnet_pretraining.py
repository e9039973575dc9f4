"""XLNet pretraining task: the permutation language model with partial
prediction, on records of `create_xlnet_pretraining_data.py` (or the original's).

Each example's loss is the mean cross-entropy over its `num_predict` targets
(the original averages over the targets of the whole batch; see
`tasks/pretraining_losses.py` for why per example). The factorisation orders
are drawn in tf.data (`data.pretraining.xlnet_permutation`), new every epoch;
evaluation reads the records once, in order, with the orders of the first epoch.

Memory is not carried from one batch to the next: every batch starts without
`mems` (the reuse part still only sees itself, as in the original's masks).
"""

import keras
from keras import ops

from data.pretraining.corpus_reader import expand_input_files
from data.pretraining.xlnet_dataset import xlnet_pretraining_dataset
from modeling.xlnet.pretrainer import XLNetPretrainer
from tasks.base import Task
from tasks.pretraining_losses import _weighted_mean, masked_lm_losses

# Dataset features -> the backbone's input names.
_INPUTS = {"input_k": "input_ids", "seg_id": "segment_ids", "perm_mask": "perm_mask",
           "target_mapping": "target_mapping"}


class XLNetPretrainingTask(Task):
    """Builds the XLNet pretrainer, reads and permutes the records, computes
    the permutation-LM loss and accuracy on the predicted positions.

    Example:
    >>> task = XLNetPretrainingTask(XLNetConfig.from_preset("xlnet_tiny"), "out/xlnet.tfrecord",
    ...                             seq_len=128, reuse_len=64, perm_size=32, num_predict=21)
    >>> Trainer(task, RunOptions(output_dir="/tmp/xlnet")).train(16, 1000, OptimizerConfig())
    """

    def __init__(self, config, input_file, seq_len, reuse_len, perm_size, num_predict,
                 init_checkpoint=None, seed=12345):
        self.config = config
        self.input_files = expand_input_files(input_file)  # Fails now on a glob matching nothing.
        self.seq_len, self.reuse_len, self.perm_size, self.num_predict = seq_len, reuse_len, perm_size, num_predict
        self.init_checkpoint = init_checkpoint
        self.seed = seed

    def build_model(self):
        return XLNetPretrainer(self.config)

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
