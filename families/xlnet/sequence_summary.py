"""XLNet's sequence-level head: the original's `summarize_sequence` with
`summary_type="last"` and its classification/regression logit layer."""

import keras

from modeling.dense import Dense
from modeling.heads import ClassificationHead


@keras.saving.register_keras_serializable(package="bert_garden")
class XLNetClassificationHead(keras.layers.Layer):
    """Logits [batch, units] from the content stream's last position.

    XLNet's fine-tuning inputs end with `<cls>` (padding on the left), so the
    last position is the summary token. It goes through a tanh projection
    (`summary`: the original's `model/sequnece_summary/summary`, Hugging Face's
    `sequence_summary.summary`), dropout, then the logit layer (`logits_proj`:
    the original's `model/{classification,regression}_<task>/logit`, Hugging
    Face's `logits_proj`). `units=1` is regression. Logits are float32.

    Example:
    >>> head = XLNetClassificationHead(units=3, d_model=768)
    >>> head(backbone(inputs)["sequence_output"])  # [batch, 3]
    """

    def __init__(self, units, d_model, dropout_rate=0.1, initializer_range=0.02, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.d_model = d_model
        self.dropout_rate = dropout_rate
        self.initializer_range = initializer_range
        initializer = keras.initializers.RandomNormal(stddev=initializer_range)
        self.summary = Dense(d_model, activation="tanh", kernel_initializer=initializer,
                             dtype=self.dtype_policy, name="summary")
        self.logits_proj = ClassificationHead(units, dropout_rate, initializer_range,
                                              dtype=self.dtype_policy, name="logits_proj")

    def build(self, sequence_output_shape):
        self.summary.build((None, self.d_model))
        self.logits_proj.build((None, self.d_model))
        self.built = True

    def call(self, sequence_output, training=None):
        return self.logits_proj(self.summary(sequence_output[:, -1]), training=training)

    def compute_output_shape(self, sequence_output_shape):
        return (sequence_output_shape[0], self.units)

    def get_config(self):
        config = super().get_config()
        config.update(units=self.units, d_model=self.d_model, dropout_rate=self.dropout_rate,
                      initializer_range=self.initializer_range)
        return config
