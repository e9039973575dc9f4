"""Question answering's models: `SpanLabeler`, start/end vectors over the
encoder's tokens, fine-tuned with it; `FeatureBasedSpanLabeler`, BiDAF's
output layer over the encoder's layers read as features (a family whose
record declares `feature_based`). A family with a head of its own (XLNet's)
names it in its record (`tasks.question_answering.heads`)."""

import keras
from keras import ops

from modeling.feature_based_models import (FeatureBasedModel, FeatureReader, bilstms, output_dense,
                                             run_bilstms)
from modeling.heads import OUTPUT_DTYPE, SpanHead
from modeling.task_models import TaskModel, encoder_inputs, with_auxiliary_loss


class NullFromPooled(keras.layers.Layer):
    """The sequence output with position 0 replaced by the pooled vector."""

    def call(self, sequence_output, pooled_output):
        return ops.concatenate([ops.expand_dims(pooled_output, 1), sequence_output[:, 1:]], axis=1)

    def compute_output_shape(self, sequence_output_shape, pooled_output_shape):
        return sequence_output_shape


@keras.saving.register_keras_serializable(package="bert_garden")
class SpanLabeler(TaskModel):
    """Start/end vectors over the tokens: `start_logits`, `end_logits` [batch, seq] (SQuAD).

    Position 0 scores the null answer (BERT's [CLS]). With `null_from_pooled`
    it is scored from the encoder's pooled vector instead of position 0's
    state: for a causal encoder whose first token has seen nothing (GPT's
    `_start_`, the same state in every window) the pooled vector is the last
    real token's, the one that has read the whole window."""

    def __init__(self, encoder, null_from_pooled=False, **kwargs):
        inputs = encoder_inputs(encoder)
        head = SpanHead(encoder.config.initializer_range, dtype=OUTPUT_DTYPE,
                        name="span")
        encoded = encoder(inputs)
        sequence = encoded["sequence_output"]
        if null_from_pooled:
            sequence = NullFromPooled(dtype=encoder.dtype_policy, name="null_from_pooled")(
                sequence, encoded["pooled_output"])
        start, end = head(sequence)
        outputs = {"start_logits": start, "end_logits": end}
        super().__init__(inputs=inputs, outputs=with_auxiliary_loss(encoder, inputs, encoded, outputs),
                         **kwargs)
        self._store(encoder, null_from_pooled=null_from_pooled)


@keras.saving.register_keras_serializable(package="bert_garden")
class FeatureBasedSpanLabeler(FeatureBasedModel):
    """`start_logits`, `end_logits` [batch, seq] (SQuAD): the start read from the
    BiLSTM states, the end from a second BiLSTM over them (BiDAF's output layer,
    which ELMo's SQuAD model builds on)."""

    def __init__(self, encoder, dropout_rate=0.1, lstm_units=None, lstm_layers=None,
                 fine_tune_encoder=False, **kwargs):
        inputs = encoder_inputs(encoder)
        reader = FeatureReader(encoder, dropout_rate, lstm_units, lstm_layers, fine_tune_encoder)
        states, mask = reader(inputs)
        (end_lstm,) = bilstms(reader.lstm_units, 1, encoder.dtype_policy, prefix="end_bilstm")
        end_states = run_bilstms([end_lstm], states, mask, "end_bilstm")
        dropout = keras.layers.Dropout(dropout_rate, name="span_dropout")
        start = output_dense(1, encoder, "start")(dropout(states))[..., 0]
        end = output_dense(1, encoder, "end")(dropout(ops.concatenate([states, end_states], axis=-1)))[..., 0]
        super().__init__(inputs=inputs, outputs={"start_logits": ops.cast(start, "float32"),
                                                 "end_logits": ops.cast(end, "float32")}, **kwargs)
        self._finish(encoder, reader, dropout_rate, fine_tune_encoder)


# The name earlier versions registered it under, as their exports' `export_meta.json`
# task-model configs still say.
keras.saving.get_custom_objects()["bert_garden>BertSpanLabeler"] = SpanLabeler
