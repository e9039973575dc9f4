"""XLNet's SQuAD 2.0 head, as the original `run_squad.py` computes it: start logits,
end logits conditioned on a start (the gold one in training, each of the top
`start_n_top` at inference: a `start_n_top` x `end_n_top` beam), and the
answer-class logit for "no answer"."""

import keras
from keras import ops

from modeling.dense import Dense
from modeling.layer_norm import LayerNorm

_MASKED = 1e30  # the original's `logits * (1 - p_mask) - 1e30 * p_mask`


def _masked(logits, p_mask):
    return logits * (1.0 - p_mask) - _MASKED * p_mask


def _select(sequence, positions):
    """sequence [b, L, h] at `positions` [b] or [b, k] -> [b, h] or [b, k, h], by
    one-hot product as the original (exact: one term is non-zero)."""
    one_hot = ops.one_hot(positions, ops.shape(sequence)[1], dtype=sequence.dtype)
    return ops.einsum("blh,b...l->b...h", sequence, one_hot)


@keras.saving.register_keras_serializable(package="bert_garden")
class XLNetSquadHead(keras.layers.Layer):
    """Span and answerability logits from the content stream's `sequence_output`.

    `p_mask` [b, L] is 1.0 where no answer may start or end (question, special
    symbols, padding); `cls_index` [b] the `<cls>` position (default: the last,
    where XLNet's inputs put it). With `start_positions` [b] (training) the end
    logits are conditioned on the gold start and the outputs are
    `start_log_probs`, `end_log_probs` [b, L]; without, on each of the top
    `start_n_top` starts: `start_top_log_probs`, `start_top_index` [b, start_n_top],
    `end_top_log_probs`, `end_top_index` [b, start_n_top * end_n_top] (start-major:
    entry i * end_n_top + j is the j-th end for the i-th start, as the original).
    Both give `cls_logits` [b], from the `<cls>` state and the start-probability
    weighted state. Log-probabilities and logits are float32.

    Example:
    >>> head = XLNetSquadHead(d_model=768, start_n_top=5, end_n_top=5)
    >>> out = head(backbone(inputs)["sequence_output"], p_mask)
    >>> out["end_top_index"].shape
    (batch, 25)
    """

    def __init__(self, d_model, start_n_top=5, end_n_top=5, dropout_rate=0.1, initializer_range=0.02,
                 layer_norm_eps=1e-12, **kwargs):
        super().__init__(**kwargs)
        self.d_model = d_model
        self.start_n_top = start_n_top
        self.end_n_top = end_n_top
        self.dropout_rate = dropout_rate
        self.initializer_range = initializer_range
        self.layer_norm_eps = layer_norm_eps
        init = keras.initializers.RandomNormal(stddev=initializer_range)

        def dense(units, name, activation=None, use_bias=True):
            return Dense(units, activation=activation, use_bias=use_bias, kernel_initializer=init,
                         dtype=self.dtype_policy, name=name)

        self.start_logits = dense(1, "start_logits")
        self.end_logits_dense_0 = dense(d_model, "end_logits_dense_0", "tanh")
        self.end_logits_layer_norm = LayerNorm(epsilon=layer_norm_eps, dtype=self.dtype_policy,
                                               name="end_logits_layer_norm")
        self.end_logits_dense_1 = dense(1, "end_logits_dense_1")
        self.answer_class_dense_0 = dense(d_model, "answer_class_dense_0", "tanh")
        self.answer_class_dense_1 = dense(1, "answer_class_dense_1", use_bias=False)
        self.dropout = keras.layers.Dropout(dropout_rate, dtype=self.dtype_policy)

    def build(self, sequence_output_shape, p_mask_shape=None):
        d = self.d_model
        self.start_logits.build((None, d))
        self.end_logits_dense_0.build((None, 2 * d))
        self.end_logits_layer_norm.build((None, d))
        self.end_logits_dense_1.build((None, d))
        self.answer_class_dense_0.build((None, 2 * d))
        self.answer_class_dense_1.build((None, d))
        self.built = True

    def _end_logits(self, sequence, start_states):
        """sequence [b, L, h] and start states broadcast to it -> float32 [b, L, ...]."""
        x = self.end_logits_dense_0(ops.concatenate([sequence, start_states], axis=-1))
        x = self.end_logits_dense_1(self.end_logits_layer_norm(x))
        return ops.cast(ops.squeeze(x, -1), "float32")

    def call(self, sequence_output, p_mask, cls_index=None, start_positions=None, training=None):
        p_mask = ops.cast(p_mask, "float32")
        start_logits = _masked(ops.cast(ops.squeeze(self.start_logits(sequence_output), -1), "float32"),
                               p_mask)
        start_log_probs = ops.log_softmax(start_logits, axis=-1)
        if start_positions is not None:
            start_states = _select(sequence_output, start_positions)[:, None]
            end_logits = self._end_logits(sequence_output,
                                          ops.broadcast_to(start_states, ops.shape(sequence_output)))
            outputs = {"start_log_probs": start_log_probs,
                       "end_log_probs": ops.log_softmax(_masked(end_logits, p_mask), axis=-1)}
        else:
            outputs = self._beam(sequence_output, start_log_probs, p_mask)
        cls_states = sequence_output[:, -1] if cls_index is None else _select(sequence_output, cls_index)
        start_probs = ops.cast(ops.softmax(start_logits, axis=-1), sequence_output.dtype)
        start_weighted = ops.einsum("blh,bl->bh", sequence_output, start_probs)
        x = self.answer_class_dense_0(ops.concatenate([start_weighted, cls_states], axis=-1))
        x = self.answer_class_dense_1(self.dropout(x, training=training))
        outputs["cls_logits"] = ops.cast(ops.squeeze(x, -1), "float32")
        return outputs

    def _beam(self, sequence, start_log_probs, p_mask):
        start_top_log_probs, start_top_index = ops.top_k(start_log_probs, self.start_n_top)
        start_states = _select(sequence, start_top_index)  # [b, k, h]
        shape = (ops.shape(sequence)[0], ops.shape(sequence)[1], self.start_n_top, self.d_model)
        end_logits = self._end_logits(ops.broadcast_to(sequence[:, :, None], shape),
                                      ops.broadcast_to(start_states[:, None], shape))  # [b, L, k]
        end_log_probs = ops.log_softmax(_masked(ops.transpose(end_logits, (0, 2, 1)), p_mask[:, None]),
                                        axis=-1)
        end_top_log_probs, end_top_index = ops.top_k(end_log_probs, self.end_n_top)  # [b, k, k_end]
        beam = self.start_n_top * self.end_n_top
        return {"start_top_log_probs": start_top_log_probs,
                "start_top_index": ops.cast(start_top_index, "int32"),
                "end_top_log_probs": ops.reshape(end_top_log_probs, (-1, beam)),
                "end_top_index": ops.reshape(ops.cast(end_top_index, "int32"), (-1, beam))}

    def get_config(self):
        config = super().get_config()
        config.update(d_model=self.d_model, start_n_top=self.start_n_top, end_n_top=self.end_n_top,
                      dropout_rate=self.dropout_rate, initializer_range=self.initializer_range,
                      layer_norm_eps=self.layer_norm_eps)
        return config
