"""Multiple choice's models: `MultipleChoiceClassifier`, one vector scoring
each choice's pooled output, fine-tuned with the encoder;
`FeatureBasedMultipleChoice`, each choice read as the feature-based classifier
reads a sequence (a family whose record declares `feature_based`)."""

import keras

from modeling.feature_based_models import (FeatureBasedModel, FeatureReader, output_dense,
                                           pooled_states)
from modeling.heads import OUTPUT_DTYPE, MultipleChoiceHead
from modeling.task_models import (FlattenChoices, TaskModel, UnflattenChoices, encoder_inputs,
                                  with_auxiliary_loss)


@keras.saving.register_keras_serializable(package="bert_garden")
class MultipleChoiceClassifier(TaskModel):
    """Inputs [batch, choices, seq]; every choice goes through the encoder as one
    [batch * choices, seq] batch; one vector V scores each pooled output:
    `logits` [batch, choices] for a softmax over the choices (SWAG)."""

    def __init__(self, encoder, dropout_rate=0.1, **kwargs):
        inputs = encoder_inputs(encoder, leading=(None,))
        head = MultipleChoiceHead(dropout_rate, encoder.config.initializer_range,
                                  dtype=OUTPUT_DTYPE, name="choice_scorer")
        flat = {k: FlattenChoices(name=f"flatten_{k}")(v) for k, v in inputs.items()}
        encoded = encoder(flat)
        scores = head(encoded["pooled_output"])
        # float32 logits under mixed precision too, as every other task model returns.
        logits = UnflattenChoices(dtype="float32", name="unflatten_scores")(
            scores, inputs["input_mask"])
        super().__init__(inputs=inputs, **kwargs,
                         outputs=with_auxiliary_loss(encoder, flat, encoded, {"logits": logits},
                                                     choices_of=inputs["input_mask"]))
        self._store(encoder, dropout_rate=dropout_rate)


@keras.saving.register_keras_serializable(package="bert_garden")
class FeatureBasedMultipleChoice(FeatureBasedModel):
    """Inputs [batch, choices, seq, ...]; each choice read as one sequence,
    pooled as the classifier and scored by one vector: `logits` [batch, choices]."""

    def __init__(self, encoder, dropout_rate=0.1, lstm_units=None, lstm_layers=None,
                 fine_tune_encoder=False, **kwargs):
        inputs = encoder_inputs(encoder, leading=(None,))
        flat = {k: FlattenChoices(name=f"flatten_{k}")(v) for k, v in inputs.items()}
        reader = FeatureReader(encoder, dropout_rate, lstm_units, lstm_layers, fine_tune_encoder)
        scores = output_dense(1, encoder, "choice_scorer")(pooled_states(reader, flat, encoder, dropout_rate))
        logits = UnflattenChoices(dtype="float32", name="unflatten_scores")(scores, inputs["input_mask"])
        super().__init__(inputs=inputs, outputs={"logits": logits}, **kwargs)
        self._finish(encoder, reader, dropout_rate, fine_tune_encoder)


# The name earlier versions registered it under, as their exports' `export_meta.json`
# task-model configs still say.
keras.saving.get_custom_objects()["bert_garden>BertMultipleChoice"] = MultipleChoiceClassifier
