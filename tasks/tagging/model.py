"""Tagging's models: `TokenClassifier`, a dense layer per token, fine-tuned
with the encoder; `FeatureBasedTokenClassifier`, the encoder's layers read as
features under a task BiLSTM (a family whose record declares
`feature_based`). Both may end in a linear-chain CRF. BERT's feature-based
tagger of the paper's section 5.4 is `tasks.tagging.feature_based_tagger`."""

import keras

from modeling.crf import tagging_outputs
from modeling.feature_based_models import FeatureBasedModel, FeatureReader, output_dense
from modeling.heads import OUTPUT_DTYPE, TokenClassificationHead
from modeling.task_models import TaskModel, encoder_inputs, with_auxiliary_loss


@keras.saving.register_keras_serializable(package="bert_garden")
class TokenClassifier(TaskModel):
    """Dense layer per token: `logits` [batch, seq, num_labels] (NER, no CRF, as
    the paper); with `crf` also a linear-chain CRF's transitions
    (`modeling.crf`: `crf_transitions`, layer "crf")."""

    def __init__(self, encoder, num_labels, dropout_rate=0.1, crf=False, **kwargs):
        inputs = encoder_inputs(encoder)
        head = TokenClassificationHead(num_labels, dropout_rate, encoder.config.initializer_range,
                                       dtype=OUTPUT_DTYPE, name="token_classifier")
        encoded = encoder(inputs)
        outputs = tagging_outputs(head(encoded["sequence_output"]), num_labels, crf)
        super().__init__(inputs=inputs, **kwargs,
                         outputs=with_auxiliary_loss(encoder, inputs, encoded, outputs))
        self._store(encoder, num_labels=num_labels, dropout_rate=dropout_rate, crf=crf)


@keras.saving.register_keras_serializable(package="bert_garden")
class FeatureBasedTokenClassifier(FeatureBasedModel):
    """`logits` [batch, seq, num_labels] (NER); with `crf` also a linear-chain
    CRF's transitions (`modeling.crf`: `crf_transitions`, layer "crf"), the
    ELMo paper's NER output layer."""

    def __init__(self, encoder, num_labels, dropout_rate=0.1, lstm_units=None, lstm_layers=None,
                 fine_tune_encoder=False, crf=False, **kwargs):
        inputs = encoder_inputs(encoder)
        reader = FeatureReader(encoder, dropout_rate, lstm_units, lstm_layers, fine_tune_encoder)
        states, _ = reader(inputs)
        states = keras.layers.Dropout(dropout_rate, name="states_dropout")(states)
        logits = output_dense(num_labels, encoder, "token_classifier")(states)
        super().__init__(inputs=inputs, outputs=tagging_outputs(logits, num_labels, crf), **kwargs)
        self._finish(encoder, reader, dropout_rate, fine_tune_encoder, num_labels=num_labels, crf=crf)


# The name earlier versions registered it under, as their exports' `export_meta.json`
# task-model configs still say.
keras.saving.get_custom_objects()["bert_garden>BertTokenClassifier"] = TokenClassifier
