"""The linear-chain CRF (`modeling/crf.py`) against enumeration: for small
cases every tag sequence of each row's chain is scored in float64 NumPy, which
gives the log-partition, the negative log-likelihood, the best path and, from
the sequences' probabilities, the marginals the gradient must equal. Masks
skip positions anywhere in a row (the chain runs over the marked ones, in
order), a row may have none. Under TensorFlow here and under JAX in a
subprocess (`crf_backend.py`).

Tolerances: float32 rounds each of the about T * (L + 3) additions, exps and
logs of a row at 6e-8 of values up to ~30 here, which bounds the error by
~1e-5 absolute at these sizes (and the probabilities by 1e-5)."""

import itertools
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

from modeling.crf import log_partition, negative_log_likelihood, viterbi_tags
from tests.conftest import JAX_CPU, ROOT

TOLERANCE = {"rtol": 1e-5, "atol": 1e-5}
MASKS = [[1, 1, 1, 1, 1],  # the whole row
         [0, 1, 0, 1, 1],  # gaps, the first position unmarked
         [1, 0, 0, 0, 0],  # a chain of one
         [0, 0, 0, 0, 0],  # no chain
         [1, 1, 0, 0, 1]]


def case(num_labels, seed, masks=MASKS):
    """Random logits, transitions (one matrix per row, all equal, as a task
    model outputs them), gold tags (random off the chain too) and masks."""
    rng = np.random.default_rng(seed)
    mask = np.array(masks, bool)
    batch, seq = mask.shape
    transitions = rng.normal(0, 2, (num_labels + 2, num_labels)).astype(np.float32)
    return {"logits": rng.normal(0, 2, (batch, seq, num_labels)).astype(np.float32),
            "transitions": np.repeat(transitions[None], batch, axis=0),
            "label_ids": rng.integers(0, num_labels, (batch, seq)).astype(np.int32),
            "mask": mask}


def path_score(emissions, transitions, tags):
    """start + emissions + pair transitions + end of one tag sequence (float64)."""
    labels = emissions.shape[1]
    total = transitions[labels, tags[0]] + transitions[labels + 1, tags[-1]]
    total += sum(emissions[t, tag] for t, tag in enumerate(tags))
    return total + sum(transitions[a, b] for a, b in zip(tags[:-1], tags[1:]))


def enumerate_chains(logits, transitions, label_ids, mask):
    """Per row, by enumeration: log-partition, NLL, best tags at the chain's
    positions (-1 elsewhere), the gradient of the NLL for the logits and the
    transitions, and the best path's lead over the second."""
    batch, seq, labels = logits.shape
    out = {"log_partition": np.zeros(batch), "nll": np.zeros(batch),
           "tags": np.full((batch, seq), -1), "logits_grad": np.zeros((batch, seq, labels)),
           "transitions_grad": np.zeros((batch, labels + 2, labels)), "lead": np.inf}
    for b in range(batch):
        positions = np.flatnonzero(mask[b])
        if not len(positions):
            continue
        emissions, matrix = logits[b, positions].astype(np.float64), transitions[b].astype(np.float64)
        paths = list(itertools.product(range(labels), repeat=len(positions)))
        scores = np.array([path_score(emissions, matrix, p) for p in paths])
        top = scores.max()
        z = top + np.log(np.exp(scores - top).sum())
        gold = label_ids[b, positions]
        out["log_partition"][b] = z
        out["nll"][b] = z - path_score(emissions, matrix, gold)
        ranked = np.sort(scores)
        out["lead"] = min(out["lead"], ranked[-1] - ranked[-2] if len(ranked) > 1 else np.inf)
        out["tags"][b, positions] = paths[int(scores.argmax())]
        # d NLL = expected counts under the model - the gold sequence's counts.
        for weight, tags in [(p, path) for p, path in zip(np.exp(scores - z), paths)] + [(-1.0, gold)]:
            counts = np.zeros((labels + 2, labels))
            counts[labels, tags[0]] += 1
            counts[labels + 1, tags[-1]] += 1
            for a, c in zip(tags[:-1], tags[1:]):
                counts[a, c] += 1
            out["transitions_grad"][b] += weight * counts
            out["logits_grad"][b, positions, tags] += weight
    return out


def crf_outputs(values):
    """Log-partition, NLL, Viterbi tags and the NLL's gradients, here (TensorFlow)."""
    logits, transitions = tf.constant(values["logits"]), tf.constant(values["transitions"])
    with tf.GradientTape() as tape:
        tape.watch([logits, transitions])
        nll = negative_log_likelihood(logits, transitions, values["label_ids"], values["mask"])
        total = tf.reduce_sum(nll)
    logits_grad, transitions_grad = tape.gradient(total, [logits, transitions])
    return {"log_partition": log_partition(logits, transitions, values["mask"]).numpy(),
            "nll": nll.numpy(), "tags": viterbi_tags(logits, transitions, values["mask"]).numpy(),
            "logits_grad": logits_grad.numpy(), "transitions_grad": transitions_grad.numpy()}


CASES = {"3_labels": case(3, 0), "4_labels": case(4, 1), "one_position": case(4, 2, [[1], [0], [1]])}


def check(got, values, with_gradients=True):
    expected = enumerate_chains(**values)
    assert expected["lead"] > 1e-3  # one best path, far from float32's rounding
    for key in ("log_partition", "nll") + (("logits_grad", "transitions_grad") if with_gradients else ()):
        assert got[key].dtype == np.float32, key
        np.testing.assert_allclose(got[key], expected[key], **TOLERANCE, err_msg=key)
    np.testing.assert_array_equal(got["tags"], expected["tags"])
    assert expected["nll"].max() > 1.0 and np.abs(expected["transitions_grad"]).max() > 0.1


@pytest.mark.parametrize("name", CASES)
def test_equals_enumeration(name):
    check(crf_outputs(CASES[name]), CASES[name])


def test_in_a_graph_of_unknown_shapes_and_mixed_precision_logits():
    """As the serving SavedModel and the trimmed training batches call it: no
    static batch or length; bfloat16 logits are scored in float32."""
    values = CASES["4_labels"]
    labels = values["logits"].shape[-1]

    @tf.function(input_signature=[tf.TensorSpec([None, None, labels], tf.bfloat16),
                                  tf.TensorSpec([None, labels + 2, labels]),
                                  tf.TensorSpec([None, None], tf.int32),
                                  tf.TensorSpec([None, None], tf.bool)])
    def run(logits, transitions, label_ids, mask):
        return (negative_log_likelihood(logits, transitions, label_ids, mask),
                viterbi_tags(logits, transitions, mask))

    rounded = {**values, "logits": tf.cast(tf.cast(values["logits"], tf.bfloat16), tf.float32).numpy()}
    nll, tags = run(tf.cast(values["logits"], tf.bfloat16), values["transitions"], values["label_ids"],
                    values["mask"])
    check({"log_partition": log_partition(rounded["logits"], values["transitions"], values["mask"]).numpy(),
           "nll": nll.numpy(), "tags": tags.numpy()}, rounded, with_gradients=False)
    empty = run(tf.zeros([0, 3, labels], tf.bfloat16), tf.zeros([0, labels + 2, labels]),
                tf.zeros([0, 3], tf.int32), tf.zeros([0, 3], tf.bool))
    assert [tuple(t.shape) for t in empty] == [(0,), (0, 3)]


def test_jax_equals_enumeration(tmp_path):
    """The case with every kind of row (each case costs JAX a compilation)."""
    pytest.importorskip("jax")
    values = CASES["4_labels"]
    np.savez(tmp_path / "4_labels.npz", **values)
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "modeling", "crf_backend.py"),
                    str(tmp_path), "4_labels"], check=True,
                   env={**os.environ, **JAX_CPU})
    check(dict(np.load(tmp_path / "4_labels.jax.npz")), values)
