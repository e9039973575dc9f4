"""The biLM's language-model softmax over the word vocabulary, shared by both
directions, as the original's `softmax/W` [n_tokens_vocab, projection_dim]
and `softmax/b`; full or sampled (`tf.nn.sampled_softmax_loss`'s arithmetic)."""

import keras
import numpy as np
from keras import ops

from families.elmo.pretraining.log_uniform import expected_counts
from tasks.pretraining_losses import masked_lm_losses

_MASKED = float(np.finfo(np.float32).min)  # what TensorFlow adds to an accidental hit's logit


@keras.saving.register_keras_serializable(package="bert_garden")
class LMSoftmax(keras.layers.Layer):
    """Per-token cross-entropy of the next word from the top LSTM outputs.
    Runs in float32 whatever the policy (create it with dtype="float32")."""

    def __init__(self, vocab_size, **kwargs):
        super().__init__(**kwargs)
        self.vocab_size = vocab_size

    def build(self, input_shape):
        dim = input_shape[-1]
        # The original's initializers: normal with stddev 1/sqrt(dim), zero bias.
        self.w = self.add_weight(name="W", shape=(self.vocab_size, dim),
                                 initializer=keras.initializers.RandomNormal(stddev=dim ** -0.5))
        self.b = self.add_weight(name="b", shape=(self.vocab_size,), initializer="zeros")

    def token_losses(self, h, targets):
        """Full softmax: h [..., dim], targets [...] -> cross-entropy [...]."""
        h = ops.cast(h, "float32")
        return masked_lm_losses(ops.matmul(h, ops.transpose(self.w)) + self.b, targets)

    def sampled_token_losses(self, h, targets, candidates, num_tries):
        """Sampled softmax over the true word and `candidates` [num_sampled]
        (drawn in `num_tries` tries, `candidate_sampler`): each logit less the
        log of its expected count, a candidate that is the true word masked out."""
        h = ops.cast(h, "float32")
        targets = ops.cast(targets, "int32")
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
