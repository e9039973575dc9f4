"""The float32 bound for comparing two XLNet implementations of the same weights.

Unit roundoff u = 2**-24. Each block's largest reduction has K = max(d_model,
d_inner, klen) terms, and a K-term float32 dot product is exact to within K*u of
the sum of its terms' magnitudes (the worst case, Higham's gamma_K). The
post-LayerNorms re-normalise every block, so the errors add over the n_layer
blocks instead of compounding, and both implementations round independently:
|ours - theirs| <= 2 * n_layer * K * u * max|output|. For the tiny config
(2 layers, K = 64) that is 1.5e-5 of the output scale.
"""

import numpy as np

UNIT_ROUNDOFF = 2.0 ** -24


def float32_bound(config, klen, reference):
    k = max(config.d_model, config.d_inner, klen)
    return 2 * config.n_layer * k * UNIT_ROUNDOFF * float(np.abs(reference).max())


def dense_bound(input_error, inputs, kernel, bias):
    """Bound on |ours - theirs| after `x @ kernel + bias` (and a 1-Lipschitz
    activation such as tanh) when the two x differ by at most `input_error`:
    the difference carried through (at most max_j sum_k |W_kj| times it), plus
    both sides' rounding of the K+1-term sums (gamma_{K+1} of the terms'
    magnitudes), plus 8 ulp of |tanh| <= 1 for each side's activation."""
    weight = float(np.abs(kernel).sum(axis=0).max())
    magnitude = float(np.abs(inputs).max()) * weight + float(np.abs(bias).max())
    rounding = (kernel.shape[0] + 1) * UNIT_ROUNDOFF * magnitude + 8 * UNIT_ROUNDOFF
    return weight * input_error + 2 * rounding
