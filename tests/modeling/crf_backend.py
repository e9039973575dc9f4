"""Runs the CRF's functions under JAX (`KERAS_BACKEND=jax`, fixed per process).

Usage: python crf_backend.py DIR NAME...
For each NAME, reads DIR/NAME.npz (logits, transitions, label_ids, mask) and
writes DIR/NAME.jax.npz: log_partition, nll, tags and the gradients of the
summed NLL for the logits and the transitions. A subprocess of
tests/modeling/test_crf.py.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import jax  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402

from modeling.crf import log_partition, negative_log_likelihood, viterbi_tags  # noqa: E402


@jax.jit
def outputs(logits, transitions, label_ids, mask):
    """Everything the test compares, compiled as one program (op by op, JAX
    compiles each small op: several times slower here)."""
    def total(logits, transitions):
        return negative_log_likelihood(logits, transitions, label_ids, mask).sum()

    logits_grad, transitions_grad = jax.grad(total, argnums=(0, 1))(logits, transitions)
    return {"log_partition": log_partition(logits, transitions, mask),
            "nll": negative_log_likelihood(logits, transitions, label_ids, mask),
            "tags": viterbi_tags(logits, transitions, mask),
            "logits_grad": logits_grad, "transitions_grad": transitions_grad}


def main(directory, names):
    assert keras.backend.backend() == "jax"
    for name in names:
        values = dict(np.load(os.path.join(directory, f"{name}.npz")))
        np.savez(os.path.join(directory, f"{name}.jax.npz"),
                 **{k: np.asarray(v) for k, v in outputs(**values).items()})


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
