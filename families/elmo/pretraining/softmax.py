"""The biLM's language-model softmax over the word vocabulary, shared by both
directions, as the original's `softmax/W` [n_tokens_vocab, projection_dim]
and `softmax/b`; full or sampled (`tf.nn.sampled_softmax_loss`'s arithmetic)."""

import keras
import numpy as np
from keras import ops

from families.elmo.pretraining.log_uniform import expected_counts
from tasks.pretraining.losses import masked_lm_losses

_MASKED = float(np.finfo(np.float32).min)  # what TensorFlow adds to an accidental hit's logit


@keras.saving.register_keras_serializable(package="bert_garden")
class LMSoftmax(keras.layers.Layer):
    """(top LSTM outputs [..., dim], next word ids [...], sampled) -> per-token
    cross-entropy [...], over the full softmax when `sampled` is None, else over
    the true word and the sampled softmax's (candidates, num_tries). Runs in
    float32 whatever the policy (create it with dtype="float32")."""

    def __init__(self, vocab_size, **kwargs):
        super().__init__(**kwargs)
        self.vocab_size = vocab_size

    def build(self, input_shape):
        dim = input_shape[-1]
        # The original's initializers: normal with stddev 1/sqrt(dim), zero bias.
        self.w = self.add_weight(name="W", shape=(self.vocab_size, dim),
                                 initializer=keras.initializers.RandomNormal(stddev=dim ** -0.5))
        self.b = self.add_weight(name="b", shape=(self.vocab_size,), initializer="zeros")

    def call(self, h, targets, sampled=None):
        h = ops.cast(h, "float32")
        if sampled is None:
            return masked_lm_losses(ops.matmul(h, ops.transpose(self.w)) + self.b, targets)
        return self._sampled(h, ops.cast(targets, "int32"), *sampled)

    def _sampled(self, h, targets, candidates, num_tries):
        """Each logit less the log of its expected count (`candidates`
        [num_sampled] drawn in `num_tries` tries, `candidate_sampler`), a
        candidate that is the true word masked out."""
        num_sampled = candidates.shape[0]

        def logits(ids):
            return ops.take(self.b, ids, axis=0) - ops.log(
                expected_counts(ids, num_tries, num_sampled, self.vocab_size))

        true = ops.sum(h * ops.take(self.w, targets, axis=0), axis=-1) + logits(targets)
        sampled = ops.matmul(h, ops.transpose(ops.take(self.w, candidates, axis=0))) + logits(candidates)
        hits = ops.equal(ops.expand_dims(targets, -1), candidates)
        sampled = ops.where(hits, _MASKED, sampled)
        scores = ops.concatenate([ops.expand_dims(true, -1), sampled], axis=-1)
        return -ops.log_softmax(scores, axis=-1)[..., 0]

    def get_config(self):
        return {**super().get_config(), "vocab_size": self.vocab_size}
