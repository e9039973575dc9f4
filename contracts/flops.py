"""Training FLOPs counted analytically, the unit of the comparison's budget.

The count is what the model computes, as implemented: every matrix product
(2 x m x n x k multiply-adds), attention scores and mixing included, the output
heads included (a left-to-right LM predicts every position, a masked LM its
masked slots); element-wise work (activations, softmax, LayerNorm, dropout) and
embedding lookups are left out. Training is forward plus backward, the backward
twice the forward's products (gradients of inputs and of weights): 3x.
A family counts its own model with these pieces (`families/<name>/flops.py`).
"""

TRAINING = 3  # forward + backward, the backward twice the forward


def dense(rows, inputs, outputs):
    """A [rows, inputs] x [inputs, outputs] product."""
    return 2 * rows * inputs * outputs


def attention(queries, keys, width):
    """Scores (queries x keys) and mixing of values, over all heads: `width` is
    heads x head size."""
    return 2 * dense(queries, width, keys)


def transformer_layer(tokens, hidden, intermediate, keys=None):
    """One post-LN Transformer layer of BERT's shape over `tokens` positions, each
    attending to `keys` (default: the same `tokens`): Q, K, V and output
    projections, attention, the two feed-forward products."""
    keys = tokens if keys is None else keys
    return (dense(tokens, hidden, 3 * hidden) + attention(tokens, keys, hidden)
            + dense(tokens, hidden, hidden) + dense(tokens, hidden, intermediate)
            + dense(tokens, intermediate, hidden))
