"""Classification's models: `SequenceClassifier`, a dense layer on the
encoder's pooled output, fine-tuned with the encoder; `FeatureBasedClassifier`,
the encoder's layers read as features under a task BiLSTM (a family whose
record declares `feature_based`)."""

import keras
from keras import ops

from modeling.feature_based_models import (FeatureBasedModel, FeatureReader, output_dense,
                                           pooled_states)
from modeling.heads import OUTPUT_DTYPE, ClassificationHead
from modeling.task_models import FlattenChoices, TaskModel, encoder_inputs, with_auxiliary_loss


class SumOrders(keras.layers.Layer):
    """[batch * 2, hidden] pooled vectors of a pair in both orders -> their sum [batch, hidden]."""

    def call(self, pooled):
        return ops.sum(ops.reshape(pooled, (-1, 2, pooled.shape[-1])), axis=1)

    def compute_output_shape(self, pooled_shape):
        return (None, pooled_shape[-1])


@keras.saving.register_keras_serializable(package="bert_garden")
class SequenceClassifier(TaskModel):
    """Dense layer on the encoder's pooled output (BERT's [CLS]; a causal
    encoder's last real token; XLNet's summary): `logits` [batch, num_classes]
    (num_classes=1 gives a regression score, as STS-B).

    With `both_orders` the inputs are [batch, 2, seq], a pair packed as (A, B)
    and as (B, A) (`tasks.classification.features`); each order is encoded
    alone and the two pooled vectors are summed element-wise before the dense
    layer, so the logits do not depend on the order (GPT's similarity
    transformation); the auxiliary loss is the mean over the two orders."""

    def __init__(self, encoder, num_classes, dropout_rate=0.1, both_orders=False, **kwargs):
        inputs = encoder_inputs(encoder, leading=(2,) if both_orders else ())
        head = ClassificationHead(num_classes, dropout_rate, encoder.config.initializer_range,
                                  dtype=OUTPUT_DTYPE, name="classifier")
        if both_orders:
            flat = {k: FlattenChoices(name=f"flatten_{k}")(v) for k, v in inputs.items()}
            encoded = encoder(flat)
            pooled = SumOrders(dtype=encoder.dtype_policy, name="sum_orders")(encoded["pooled_output"])
            outputs = with_auxiliary_loss(encoder, flat, encoded, {"logits": head(pooled)},
                                          choices_of=inputs["input_mask"])
        else:
            encoded = encoder(inputs)
            outputs = with_auxiliary_loss(encoder, inputs, encoded,
                                          {"logits": head(encoded["pooled_output"])})
        super().__init__(inputs=inputs, outputs=outputs, **kwargs)
        self.both_orders = both_orders
        self._store(encoder, num_classes=num_classes, dropout_rate=dropout_rate,
                    both_orders=both_orders)


@keras.saving.register_keras_serializable(package="bert_garden")
class FeatureBasedClassifier(FeatureBasedModel):
    """`logits` [batch, num_classes] (one column: a regression score)."""

    def __init__(self, encoder, num_classes, dropout_rate=0.1, lstm_units=None, lstm_layers=None,
                 fine_tune_encoder=False, **kwargs):
        inputs = encoder_inputs(encoder)
        reader = FeatureReader(encoder, dropout_rate, lstm_units, lstm_layers, fine_tune_encoder)
        pooled = pooled_states(reader, inputs, encoder, dropout_rate)
        logits = ops.cast(output_dense(num_classes, encoder, "classifier")(pooled), "float32")
        super().__init__(inputs=inputs, outputs={"logits": logits}, **kwargs)
        self._finish(encoder, reader, dropout_rate, fine_tune_encoder, num_classes=num_classes)


# The name earlier versions registered it under, as their exports' `export_meta.json`
# task-model configs still say.
keras.saving.get_custom_objects()["bert_garden>BertClassifier"] = SequenceClassifier
