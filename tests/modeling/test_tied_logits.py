"""The tied decoders (BERT's masked-LM head, XLNet's LM head) multiply one 2-D
matrix by the table: the same logits and table gradient as the 3-D einsum, up
to float32 summation order, and no broadcast batch matmul in the gradient."""

import keras
import numpy as np
import pytest
import tensorflow as tf
from keras import ops

from modeling.heads import MaskedLMHead, tied_logits
from families.xlnet.lm_head import XLNetLMHead

EPS = 2.0 ** -24  # float32 unit roundoff


def logits_and_table_gradient(fn, x, table, upstream):
    with tf.GradientTape() as tape:
        tape.watch(table)
        logits = fn(x, table)
        loss = tf.reduce_sum(logits * upstream)
    return logits.numpy(), tape.gradient(loss, table).numpy()


def test_tied_logits_equal_the_einsum_up_to_summation_order():
    rng = np.random.default_rng(0)
    x, table, upstream = (tf.constant(rng.normal(size=shape).astype("float32"))
                          for shape in [(16, 7, 64), (300, 64), (16, 7, 300)])
    ours = logits_and_table_gradient(tied_logits, x, table, upstream)
    einsum = logits_and_table_gradient(
        lambda a, b: ops.einsum("bph,vh->bpv", a, b), x, table, upstream)
    # A float32 sum of n products is off by at most n * eps * (sum of their magnitudes).
    x, table, upstream = np.abs(x.numpy()), np.abs(table.numpy()), np.abs(upstream.numpy())
    logits_bound = 2 * 64 * EPS * np.einsum("bph,vh->bpv", x, table)
    gradient_bound = 2 * 16 * 7 * EPS * np.einsum("bph,bpv->vh", x, upstream)
    assert ours[0].shape == (16, 7, 300)
    assert np.all(np.abs(ours[0] - einsum[0]) <= logits_bound)
    assert np.all(np.abs(ours[1] - einsum[1]) <= gradient_bound)


@pytest.mark.parametrize("head", ["bert", "xlnet"])
def test_table_gradient_is_one_matmul(head):
    """A broadcast BatchMatMulV2 would compute a [hidden, vocab] product per batch row."""
    embedding = keras.layers.Embedding(300, 64)
    embedding.build((None,))
    if head == "bert":
        layer = MaskedLMHead(embedding)
        inputs = (tf.zeros([16, 12, 64]), tf.zeros([16, 7], tf.int32))
    else:
        layer = XLNetLMHead(embedding)
        inputs = (tf.zeros([16, 7, 64]),)
    layer(*inputs)

    @tf.function
    def table_gradient(*inputs):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(layer(*inputs))
        return tape.gradient(loss, embedding.embeddings)

    graph = table_gradient.get_concrete_function(*inputs).graph
    assert "BatchMatMulV2" not in {op.type for op in graph.get_operations()}
