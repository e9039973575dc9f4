"""A linear-chain CRF output layer for token tagging (the BiLSTM-CRF of the
ELMo paper's NER model): label-to-label transition scores learned with the
task model, trained by the chain's negative log-likelihood, decoded by Viterbi.

The chain runs over the positions a mask marks (in tagging, each word's first
piece: `label_weights > 0`), in order, skipping the others: the label of a
word's first piece follows the previous word's. The masked positions of each
row are first moved to its front, in order (`compact`), so every chain is a
prefix of its row; the forward and Viterbi recursions leave their state
unchanged past a row's chain. A row without a marked position has an empty
chain: log-partition and negative log-likelihood 0, no tags.

Transitions are one float32 matrix `transitions` [num_labels + 2, num_labels]
(batched [batch, num_labels + 2, num_labels] in the functions below): row i,
column j scores label i followed by label j; row `num_labels` scores the
chain's first label (start), row `num_labels + 1` its last (end). The score of
tags y_1..y_n at chain positions with emission scores (the model's logits) e:

    start[y_1] + sum_t e_t[y_t] + sum_t>1 transitions[y_t-1, y_t] + end[y_n]

Everything runs in float32 (logits cast, the layer's weights float32 under
any mixed-precision policy), with keras.ops only: TensorFlow and JAX alike,
in a graph (the serving SavedModel decodes with `viterbi_tags`).

Example:
>>> outputs = tagging_outputs(logits, num_labels=9, crf=True)  # in a task model
>>> loss = negative_log_likelihood(outputs["logits"], outputs["crf_transitions"],
...                                label_ids, label_weights > 0)   # [batch]
>>> tags = viterbi_tags(outputs["logits"], outputs["crf_transitions"], label_weights > 0)
"""

import keras
from keras import ops

TRANSITIONS_OUTPUT = "crf_transitions"


@keras.saving.register_keras_serializable(package="bert_garden")
class ChainTransitions(keras.layers.Layer):
    """Holds the CRF's weights, float32 whatever the policy: `transitions`
    [num_labels, num_labels], `start_transitions` and `end_transitions`
    [num_labels], all starting at 0 (where decoding is the per-position
    argmax). Called on the logits [batch, seq, num_labels], returns them packed
    for every row, [batch, num_labels + 2, num_labels]: a task model's output
    beside its logits, for the loss and decoding, which need both."""

    def __init__(self, num_labels, **kwargs):
        kwargs["dtype"] = "float32"
        super().__init__(**kwargs)
        self.num_labels = num_labels
        self.supports_masking = True  # the logits' mask (a BiLSTM's) ends here

    def compute_mask(self, logits, mask=None):
        return None

    def build(self, logits_shape):
        shape = (self.num_labels,)
        self.transitions = self.add_weight(name="transitions", shape=shape * 2, initializer="zeros")
        self.start_transitions = self.add_weight(name="start_transitions", shape=shape,
                                                 initializer="zeros")
        self.end_transitions = self.add_weight(name="end_transitions", shape=shape,
                                               initializer="zeros")
        self.built = True

    def call(self, logits):
        packed = ops.concatenate([self.transitions, self.start_transitions[None],
                                  self.end_transitions[None]], axis=0)
        return ops.broadcast_to(packed[None], (ops.shape(logits)[0], *packed.shape))

    def compute_output_shape(self, logits_shape):
        return (logits_shape[0], self.num_labels + 2, self.num_labels)

    def get_config(self):
        config = super().get_config()
        config.pop("dtype", None)
        return {**config, "num_labels": self.num_labels}


def tagging_outputs(logits, num_labels, crf):
    """A tagging model's outputs: {"logits"} float32, and with `crf` the
    `ChainTransitions` (layer "crf") under `TRANSITIONS_OUTPUT`."""
    logits = ops.cast(logits, "float32")
    if not crf:
        return {"logits": logits}
    return {"logits": logits, TRANSITIONS_OUTPUT: ChainTransitions(num_labels, name="crf")(logits)}


def compact(mask):
    """(order int32 [batch, seq]: the marked positions of each row first, in
    order, then the others; lengths int32 [batch]: marked positions per row)."""
    mask = ops.cast(mask, "bool")
    seq = ops.shape(mask)[1]
    positions = ops.expand_dims(ops.arange(seq, dtype="int32"), 0)
    keys = ops.where(mask, positions, positions + seq)  # distinct: the order is unique
    return ops.cast(ops.argsort(keys, axis=1), "int32"), ops.sum(ops.cast(mask, "int32"), axis=1)


def _chain(logits, transitions, mask):
    """Float32 emissions moved to the front of each row [batch, seq, labels],
    float32 transitions split into (pairs, start, end), the order and the lengths."""
    logits = ops.cast(logits, "float32")
    transitions = ops.cast(transitions, "float32")
    order, lengths = compact(mask)
    emissions = ops.take_along_axis(logits, ops.expand_dims(order, -1), axis=1)
    labels = ops.shape(logits)[-1]
    parts = (transitions[:, :labels], transitions[:, labels], transitions[:, labels + 1])
    return emissions, parts, order, lengths


def _inside(t, lengths):
    """[batch, 1]: whether chain position `t` lies inside each row's chain."""
    return ops.expand_dims(t < lengths, 1)


def _recursion(step, start, emissions, lengths, extra=()):
    """`ops.scan` over every position of the compacted `emissions`, the first
    included (a scan of no steps, as a sequence of one position would need,
    fails in TensorFlow's graphs): `step(state, emission [batch, labels], t)`
    -> (the next state, *the next `extra`); past a row's chain its values stay
    as they are. Returns the final carry and the stacked ones, each
    (state, *extra, t)."""
    def body(carry, emission):
        state, *_, t = carry
        new, *rest = step(state, emission, t)
        inside = _inside(t, lengths)
        carry = (ops.where(inside, new, state), *[ops.where(inside, r, e) for r, e in zip(rest, extra)],
                 t + 1)
        return carry, carry  # Keras's TensorFlow scan wants outputs shaped as the carry

    return ops.scan(body, (start, *extra, ops.zeros((), "int32")), ops.transpose(emissions, (1, 0, 2)))


def log_partition(logits, transitions, mask):
    """log of the sum over every tag sequence of the chain of exp(score): [batch] float32."""
    emissions, (pairs, start, end), _, lengths = _chain(logits, transitions, mask)

    def step(alpha, emission, t):
        onward = ops.logsumexp(ops.expand_dims(alpha, 2) + pairs, axis=1)
        return (ops.where(t > 0, onward, alpha) + emission,)  # the first: start + emission

    (alpha, _), _ = _recursion(step, start, emissions, lengths)
    return ops.where(lengths > 0, ops.logsumexp(alpha + end, axis=1), 0.0)


def sequence_score(logits, transitions, label_ids, mask):
    """The score of the tags `label_ids` [batch, seq] read at the chain's
    positions (others ignored): [batch] float32, 0 for an empty chain."""
    emissions, (pairs, start, end), order, lengths = _chain(logits, transitions, mask)
    tags = ops.take_along_axis(ops.cast(label_ids, "int32"), order, axis=1)
    seq, labels = ops.shape(tags)[1], ops.shape(emissions)[-1]
    inside = ops.arange(seq, dtype="int32")[None] < ops.expand_dims(lengths, 1)
    tags = ops.where(inside, tags, 0)  # ids off the chain are not read, whatever they hold
    emitted = ops.take_along_axis(emissions, ops.expand_dims(tags, -1), axis=2)[..., 0]
    pair_index = tags[:, :-1] * labels + tags[:, 1:]
    moved = ops.take_along_axis(ops.reshape(pairs, (-1, labels * labels)), pair_index, axis=1)
    first = ops.take_along_axis(start, tags[:, :1], axis=1)[:, 0]
    last_tag = ops.take_along_axis(tags, ops.expand_dims(ops.maximum(lengths - 1, 0), 1), axis=1)
    last = ops.take_along_axis(end, last_tag, axis=1)[:, 0]
    total = (ops.sum(ops.where(inside, emitted, 0.0), axis=1)
             + ops.sum(ops.where(inside[:, 1:], moved, 0.0), axis=1) + first + last)
    return ops.where(lengths > 0, total, 0.0)


def negative_log_likelihood(logits, transitions, label_ids, mask):
    """-log p(label_ids | logits) of each row's chain: [batch] float32, 0 for an empty chain."""
    return (log_partition(logits, transitions, mask)
            - sequence_score(logits, transitions, label_ids, mask))


def viterbi_tags(logits, transitions, mask):
    """The best-scoring tags of each row's chain, at the chain's positions, -1
    elsewhere: int32 [batch, seq]. Ties go to the lower label id."""
    emissions, (pairs, start, end), order, lengths = _chain(logits, transitions, mask)
    same = ops.zeros_like(start, dtype="int32") + ops.arange(ops.shape(start)[-1], dtype="int32")

    def step(delta, emission, t):
        scores = ops.expand_dims(delta, 2) + pairs
        onward = ops.where(t > 0, ops.max(scores, axis=1), delta)
        best = ops.where(t > 0, ops.cast(ops.argmax(scores, axis=1), "int32"), same)
        return onward + emission, best

    # Pointers [seq, batch, labels]: the best previous tag of each tag (itself past the chain).
    (delta, _, _), (_, pointers, _) = _recursion(step, start, emissions, lengths, extra=(same,))
    last = ops.cast(ops.argmax(delta + end, axis=1), "int32")

    def backward(tag, pointer):
        return ops.take_along_axis(pointer, ops.expand_dims(tag, 1), axis=1)[:, 0], tag

    _, path = ops.scan(backward, last, pointers, reverse=True)  # path[t] = tag at t
    path = ops.transpose(path)
    tags = ops.take_along_axis(path, ops.cast(ops.argsort(order, axis=1), "int32"), axis=1)
    return ops.where(ops.cast(mask, "bool"), tags, -1)
