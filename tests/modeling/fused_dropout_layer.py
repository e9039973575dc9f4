"""SelfAttention under JAX as on a GPU: it chooses the fused dropout kernel (after
the kernel's self-check), the layer's output and input gradient equal the same
layer with the unfused reference in the kernel's place (same seed), and each
training step draws a new seed. Run by
tests/modeling/test_flash_attention.py with KERAS_BACKEND=jax (fixed per process).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402

from modeling import flash_attention  # noqa: E402
from modeling.attention import SelfAttention  # noqa: E402
from modeling.masks import attention_mask_from_input_mask  # noqa: E402

HEADS, HEAD_SIZE, SEQ = 2, 16, 2 * flash_attention.BLOCK


def main():
    assert keras.backend.backend() == "jax"
    layer = SelfAttention(HEADS, HEAD_SIZE, dropout_rate=0.1)
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.standard_normal((2, SEQ, HEADS * HEAD_SIZE)), jnp.float32)
    input_mask = np.ones((2, SEQ), np.int32)
    input_mask[1, 45:] = 0
    mask = jnp.asarray(attention_mask_from_input_mask(input_mask))
    layer(x, mask)
    assert not layer.runs_fused_dropout(SEQ), "chosen off a GPU"

    flash_attention.on_gpu = lambda: True  # as on a GPU; the kernel still runs interpreted
    flash_attention.works_here.cache_clear()  # so that a jitted step asks first, as in training
    kernel = flash_attention.attention
    weights = jnp.asarray(rng.standard_normal(x.shape), jnp.float32)

    def run(attention):
        flash_attention.attention = attention
        trainable = [v.value for v in layer.trainable_variables]
        state = [v.value for v in layer.non_trainable_variables]

        def loss(x):
            out, new_state = layer.stateless_call(trainable, state, x, mask, training=True)
            return jnp.sum(out * weights), (out, new_state)

        (_, (out, new_state)), grad = jax.jit(jax.value_and_grad(loss, has_aux=True))(x)
        return np.asarray(out), np.asarray(grad), new_state

    fused, fused_grad, new_state = run(kernel)
    assert layer.runs_fused_dropout(SEQ), "not chosen on a GPU"
    assert not layer.runs_fused_dropout(SEQ + 1), "chosen for a length the kernel refuses"
    unfused, unfused_grad, _ = run(flash_attention.reference_attention)
    flash_attention.attention = kernel
    # float32: an output is a sum of HEADS * HEAD_SIZE projected context values, each
    # within (SEQ + HEAD_SIZE * |score|) eps of exact; scores are below 1 at BERT's
    # 0.02 initialisation.
    eps = float(np.finfo(np.float32).eps)
    bound = HEADS * HEAD_SIZE * (SEQ + HEAD_SIZE) * eps * np.abs(unfused).max()
    np.testing.assert_allclose(fused, unfused, rtol=0, atol=bound)
    np.testing.assert_allclose(fused_grad, unfused_grad, rtol=0,
                               atol=bound * np.abs(unfused_grad).max() / np.abs(unfused).max())
    eval_out = np.asarray(layer(x, mask, training=False))
    assert np.abs(fused - eval_out).max() > 1e-3, "dropout changed nothing"

    for variable, value in zip(layer.non_trainable_variables, new_state):
        variable.assign(value)
    again, _, _ = run(kernel)
    assert np.abs(again - fused).max() > 1e-3, "the next step drew the same dropout mask"
    print("fused dropout layer: ok")


if __name__ == "__main__":
    main()
