"""XLNet's SQuAD 2.0 task model, as its original `run_squad.py` builds it."""

import keras

from families.xlnet.squad_head import XLNetSquadHead
from modeling.encoder_interface import check_encoder, input_specs
from modeling.heads import OUTPUT_DTYPE
from modeling.task_models import TaskModelConfig


@keras.saving.register_keras_serializable(package="bert_garden")
class XLNetSpanLabeler(TaskModelConfig, keras.Model):
    """XLNet's SQuAD 2.0 model as the original `run_squad.py`: the encoder's
    `sequence_output` into `XLNetSquadHead`.

    Inputs: the encoder's, `p_mask` float32 [batch, seq] (1.0 where no answer may
    start or end), `cls_index` int32 [batch] and, in training, `start_positions`
    int32 [batch] (the end is conditioned on it). Outputs: with `start_positions`,
    `start_log_probs`, `end_log_probs` [batch, seq]; without, the beam
    `start_top_log_probs`, `start_top_index` [batch, start_n_top],
    `end_top_log_probs`, `end_top_index` [batch, start_n_top * end_n_top]; both
    `cls_logits` [batch] (the answer class: > 0 leans to "no answer"). Not a
    functional model: which outputs it gives depends on the inputs.

    Example:
    >>> model = XLNetSpanLabeler(XLNetEncoder(config), start_n_top=5, end_n_top=5)
    >>> model({**encoder_inputs, "p_mask": p_mask, "cls_index": cls_index})["end_top_index"].shape
    (batch, 25)
    """

    def __init__(self, encoder, start_n_top=5, end_n_top=5, dropout_rate=0.1, **kwargs):
        super().__init__(**kwargs)
        check_encoder(encoder)
        config = encoder.config
        self.head = XLNetSquadHead(config.hidden_size, start_n_top, end_n_top, dropout_rate,
                                   config.initializer_range, config.layer_norm_eps,
                                   dtype=OUTPUT_DTYPE, name="squad")
        self.head.build((None, None, config.hidden_size))
        self._store(encoder, start_n_top=start_n_top, end_n_top=end_n_top,
                    dropout_rate=dropout_rate)

    def build(self, input_shape=None):
        self.built = True

    def call(self, inputs, training=None):
        sequence = self.encoder({name: inputs[name] for name in input_specs(self.encoder)},
                                training=training)["sequence_output"]
        return self.head(sequence, inputs["p_mask"], inputs["cls_index"],
                         inputs.get("start_positions"), training=training)
