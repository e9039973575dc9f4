"""Pretraining task: masked LM + next sentence, or one of the paper's ablations.

Reads google-research pretraining TFRecords (`data.pretraining.dataset`:
`input_ids, input_mask, segment_ids, masked_lm_positions, masked_lm_ids,
masked_lm_weights, next_sentence_labels`) and maps them to the model's input
names. For `ltr` the records carry every position's next token in
`masked_lm_*` features `max_seq_length` wide (`create_pretraining_data.py
--objective=ltr`), so `max_predictions_per_seq` does not apply.
`max_sequences_per_pack` reads packed rows (`pack_pretraining_data.py`).
"""

import keras
import tensorflow as tf
from keras import ops

from data.pretraining import features as F
from data.pretraining.corpus_reader import expand_input_files
from data.pretraining.dataset import pretraining_dataset
from families.bert.pretrainer import BertPretrainer
from modeling.encoder_interface import build_encoder
from tasks.pretraining.losses import masked_lm_losses, next_sentence_losses, pretraining_loss
from training.task import Task

_INPUTS = {F.INPUT_IDS: "input_word_ids", F.INPUT_MASK: "input_mask",
           F.SEGMENT_IDS: "input_type_ids", F.MASKED_LM_POSITIONS: "masked_lm_positions"}


class PretrainingTask(Task):
    """Builds the pretrainer, reads the records, computes losses and metrics.

    `dynamic_masker` (a `families.bert.pretraining.tf_masking.DynamicMasker`) re-masks training
    batches with fresh masks every epoch; evaluation keeps the records' masks.

    Example:
    >>> task = PretrainingTask(BertConfig.from_preset("bert_uncased_L-2_H-128_A-2"),
    ...                        "data/*.tfrecord", max_seq_length=128, max_predictions_per_seq=20)
    >>> Trainer(task, RunOptions(output_dir="/tmp/pretrain")).train(256, 10000, OptimizerConfig())
    """

    def __init__(self, config, input_file, max_seq_length, max_predictions_per_seq,
                 objective="mlm_nsp", init_checkpoint=None, dynamic_masker=None,
                 shuffle_buffer=10_000, seed=12345, max_sequences_per_pack=0):
        if max_seq_length > config.max_position_embeddings:
            raise ValueError(f"max_seq_length {max_seq_length} exceeds the model's "
                             f"max_position_embeddings {config.max_position_embeddings}")
        if objective == "ltr" and dynamic_masker is not None:
            raise ValueError("dynamic masking does not apply to the ltr objective")
        # The config written beside the checkpoint says which mask fine-tuning keeps.
        self.config = config.replace(causal_attention=objective == "ltr")
        self.input_files = expand_input_files(input_file)  # Fails now on a glob matching nothing.
        self.max_seq_length = max_seq_length
        self.label_width = max_seq_length if objective == "ltr" else max_predictions_per_seq
        self.objective = objective
        self.init_checkpoint = init_checkpoint
        self.dynamic_masker = dynamic_masker
        self.shuffle_buffer = shuffle_buffer
        self.seed = seed
        self.max_sequences_per_pack = max_sequences_per_pack

    def build_model(self):
        return BertPretrainer(build_encoder(self.config), self.objective,
                              packed=bool(self.max_sequences_per_pack))

    def build_dataset(self, split, batch_size, training, input_context=None):
        """Training repeats over shuffled files and records in full batches;
        evaluation reads every record once, in order, the last batch partial."""
        dataset = pretraining_dataset(
            self.input_files, batch_size, self.max_seq_length, self.label_width,
            next_sentence_labels=self.objective == "mlm_nsp", shuffle=training, seed=self.seed,
            repeat=training, shuffle_buffer=self.shuffle_buffer, drop_remainder=training,
            dynamic_masker=self.dynamic_masker if training else None,
            max_sequences_per_pack=self.max_sequences_per_pack)
        return dataset.map(self._features_and_labels)

    def input_name(self, split):
        return ", ".join(self.input_files)

    def _features_and_labels(self, batch):
        features = {name: batch[feature] for feature, name in _INPUTS.items()}
        labels = {k: batch[k] for k in (F.MASKED_LM_IDS, F.MASKED_LM_WEIGHTS)}
        if self.objective == "mlm_nsp" and self.max_sequences_per_pack:
            features[F.NEXT_SENTENCE_POSITIONS] = batch[F.NEXT_SENTENCE_POSITIONS]
            for name in (F.NEXT_SENTENCE_LABELS, F.NEXT_SENTENCE_WEIGHTS):
                labels[name] = batch[name]
        elif self.objective == "mlm_nsp":
            labels[F.NEXT_SENTENCE_LABELS] = tf.reshape(batch[F.NEXT_SENTENCE_LABELS], [-1])
        return features, labels

    def loss(self, labels, outputs):
        return pretraining_loss(outputs, labels)

    def build_metrics(self):
        metrics = [keras.metrics.SparseCategoricalAccuracy("masked_lm_accuracy"),
                   keras.metrics.Mean("masked_lm_loss")]
        if self.objective == "mlm_nsp":
            metrics += [keras.metrics.SparseCategoricalAccuracy("next_sentence_accuracy"),
                        keras.metrics.Mean("next_sentence_loss")]
        return metrics

    def update_metrics(self, metrics, labels, outputs):
        # Per token, as for unpacked records (packed rows weight tokens 1 / count).
        weights = ops.cast(labels[F.MASKED_LM_WEIGHTS] > 0, "float32")
        metrics[0].update_state(labels[F.MASKED_LM_IDS], outputs["mlm_logits"], weights)
        metrics[1].update_state(
            masked_lm_losses(outputs["mlm_logits"], labels[F.MASKED_LM_IDS]), weights)
        if self.objective == "mlm_nsp":
            nsp, nsp_weights = labels[F.NEXT_SENTENCE_LABELS], labels.get(F.NEXT_SENTENCE_WEIGHTS)
            metrics[2].update_state(nsp, outputs["nsp_logits"], nsp_weights)
            metrics[3].update_state(next_sentence_losses(outputs["nsp_logits"], nsp), nsp_weights)
