"""Optimizers against the original BERT update rule, written out in numpy, and
against torch's AdamW; the schedules against the original codes' formulas."""

import math

import keras
import numpy as np
import pytest

from families.bert.encoder import BertEncoder
from families.bert.pretrainer import BertPretrainer
from tests.pretraining_records import TINY
from training.optimization import (FUSED_UPDATE_SIZE, Adam, AdamWeightDecay, Lamb, OptimizerConfig,
                                   WarmupCosineDecay, WarmupLinearDecay)


def small_model():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, name="dense"),
                              keras.layers.LayerNormalization(name="layer_norm")])
    rng = np.random.default_rng(0)
    for v in model.trainable_variables:
        v.assign(rng.normal(size=v.shape).astype("float32"))
    return model


def random_grads(model, steps, scale=1.0):
    rng = np.random.default_rng(1)
    return [[scale * rng.normal(size=v.shape).astype("float32") for v in model.trainable_variables]
            for _ in range(steps)]


def reference(weights, grads, lr, decayed, lamb=False, wd=0.01, b1=0.9, b2=0.999, eps=1e-6, corrected=None):
    """google-research/bert's AdamWeightDecayOptimizer (and LAMB with bias correction;
    `corrected`: bias correction without LAMB's trust ratio, the GPT code's Adam)."""
    corrected = lamb if corrected is None else corrected
    weights = [w.astype(np.float64) for w in weights]
    m = [np.zeros_like(w) for w in weights]
    v = [np.zeros_like(w) for w in weights]
    for t, step_grads in enumerate(grads, start=1):
        for i, g in enumerate(step_grads):
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            if corrected:
                update = (m[i] / (1 - b1 ** t)) / (np.sqrt(v[i] / (1 - b2 ** t)) + eps)
            else:
                update = m[i] / (np.sqrt(v[i]) + eps)
            if decayed[i]:
                update = update + wd * weights[i]
                if lamb:
                    w_norm, u_norm = np.linalg.norm(weights[i]), np.linalg.norm(update)
                    update = update * (w_norm / u_norm if w_norm > 0 and u_norm > 0 else 1.0)
            weights[i] = weights[i] - lr * update
    return weights


def run(optimizer, model, grads):
    for step_grads in grads:
        optimizer.apply([keras.ops.convert_to_tensor(g) for g in step_grads],
                        model.trainable_variables)
    return [v.numpy() for v in model.trainable_variables]


@pytest.mark.parametrize("cls,lamb", [(AdamWeightDecay, False), (Lamb, True)])
def test_update_matches_reference(cls, lamb):
    model = small_model()
    initial = [v.numpy() for v in model.trainable_variables]
    grads = random_grads(model, 3)
    got = run(cls(learning_rate=0.01), model, grads)
    decayed = [v.path.endswith("dense/kernel") for v in model.trainable_variables]
    assert sum(decayed) == 1
    want = reference(initial, grads, 0.01, decayed, lamb=lamb)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_adam_is_torchs_adamw_with_decay_on_the_matrices():
    """Bias-corrected Adam with decoupled weight decay: torch's AdamW, given the
    decayed variables (the kernel) and the rest (bias, LayerNorm) as two groups."""
    torch = pytest.importorskip("torch")
    model = small_model()
    initial = [v.numpy() for v in model.trainable_variables]
    grads = random_grads(model, 4)
    got = run(Adam(learning_rate=0.01, weight_decay_rate=0.1, epsilon=1e-8), model, grads)
    params = [torch.tensor(w, requires_grad=True) for w in initial]
    decayed = [v.path.endswith("dense/kernel") for v in model.trainable_variables]
    reference_optimizer = torch.optim.AdamW(
        [{"params": [p for p, d in zip(params, decayed) if d], "weight_decay": 0.1},
         {"params": [p for p, d in zip(params, decayed) if not d], "weight_decay": 0.0}],
        lr=0.01, betas=(0.9, 0.999), eps=1e-8)
    for step_grads in grads:
        for p, g in zip(params, step_grads):
            p.grad = torch.from_numpy(g)
        reference_optimizer.step()
    for g, p in zip(got, params):
        np.testing.assert_allclose(g, p.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_each_optimizer_takes_its_own_epsilon_unless_given_one():
    assert OptimizerConfig(name="adam").build(10).epsilon == 1e-8
    assert OptimizerConfig(name="adamw").build(10).epsilon == 1e-6
    assert OptimizerConfig(name="adam", epsilon=1e-3).build(10).epsilon == 1e-3


def test_no_decay_on_layer_norm_and_bias():
    model = BertPretrainer(BertEncoder(TINY))
    optimizer = AdamWeightDecay(learning_rate=0.01)
    optimizer.build(model.trainable_variables)
    kept = {v.path for v, d in zip(model.trainable_variables, optimizer._decayed) if not d}
    assert kept == {v.path for v in model.trainable_variables
                    if "layer_norm" in v.path or v.path.endswith("bias")}
    assert "embeddings/word_embeddings/embeddings" not in kept
    assert "masked_lm/output_bias" in kept


def test_schedule_is_linear_warmup_then_linear_decay_over_all_steps():
    schedule = WarmupLinearDecay(1e-4, num_train_steps=1000, num_warmup_steps=100)
    for step, want in [(0, 0.0), (50, 5e-5), (99, 9.9e-5), (100, 9e-5), (500, 5e-5),
                       (999, 1e-7), (1000, 0.0), (1200, 0.0)]:
        assert float(schedule(step)) == pytest.approx(want, rel=1e-4, abs=1e-12)


def test_cosine_schedule_is_the_original_gpts_warmup_cosine():
    """finetune-transformer-lm's `warmup_cosine(x, warmup)` with x = step / total:
    x / warmup while x < warmup, then 0.5 * (1 + cos(pi * x))."""
    def original(step, total=1000, warmup=100):
        x = step / total
        return 1e-4 * (x / (warmup / total) if step < warmup else 0.5 * (1 + math.cos(math.pi * min(x, 1.0))))
    schedule = OptimizerConfig(learning_rate=1e-4, num_warmup_steps=100, schedule="cosine").build(1000)._learning_rate
    assert isinstance(schedule, WarmupCosineDecay)
    for step in (0, 50, 99, 100, 250, 500, 999, 1000, 1200):
        assert float(schedule(step)) == pytest.approx(original(step), rel=1e-5, abs=1e-12), step
    assert float(schedule(500)) == pytest.approx(5e-5, rel=1e-5)
    with pytest.raises(ValueError, match="linear"):
        OptimizerConfig(schedule="step")


def test_clipping_uses_the_global_norm():
    """Clipped gradients of norm 10 update exactly as the same gradients pre-scaled to norm 1
    (epsilon=1 makes Adam sensitive to the gradient scale, so the clip is visible)."""
    grads = random_grads(small_model(), 1, scale=10.0)
    norm = np.sqrt(sum(np.sum(g.astype(np.float64) ** 2) for g in grads[0]))
    assert norm > 1.0
    clipped = run(OptimizerConfig(learning_rate=0.1, epsilon=1.0).build(10), small_model(), grads)
    schedule = WarmupLinearDecay(0.1, 10)
    scaled = run(AdamWeightDecay(learning_rate=schedule, epsilon=1.0), small_model(),
                 [[g / norm for g in grads[0]]])
    unclipped = run(AdamWeightDecay(learning_rate=schedule, epsilon=1.0), small_model(), grads)
    for c, s, u in zip(clipped, scaled, unclipped):
        np.testing.assert_allclose(c, s, rtol=1e-5, atol=1e-7)
    assert not all(np.allclose(c, u, atol=1e-6) for c, u in zip(clipped, unclipped))


def test_unknown_optimizer_is_rejected():
    with pytest.raises(ValueError, match="adamw"):
        OptimizerConfig(name="sgd")


def _ancestors(op):
    """Every op that `op` waits for, through data or control inputs."""
    seen, stack = set(), [op]
    while stack:
        current = stack.pop()
        for parent in [t.op for t in current.inputs] + list(current.control_inputs):
            if parent not in seen:
                seen.add(parent)
                stack.append(parent)
    return seen


@pytest.mark.skipif(keras.backend.backend() != "tensorflow", reason="TensorFlow graphs only")
def test_in_a_graph_the_updates_match_the_reference_and_run_one_variable_after_another():
    """Chained updates (training/update_chain.py): same arithmetic, and each variable's
    write waits for the previous variable's, so one update's temporaries live at a time."""
    import tensorflow as tf
    model = small_model()
    initial = [v.numpy() for v in model.trainable_variables]
    grads = random_grads(model, 3)
    optimizer = AdamWeightDecay(learning_rate=0.01)
    optimizer.build(model.trainable_variables)
    step = tf.function(lambda g: optimizer.apply(g, model.trainable_variables))
    for step_grads in grads:
        step([tf.constant(g) for g in step_grads])
    decayed = [v.path.endswith("dense/kernel") for v in model.trainable_variables]
    want = reference(initial, grads, 0.01, decayed)
    for v, w in zip(model.trainable_variables, want):
        np.testing.assert_allclose(v.numpy(), w, rtol=1e-5, atol=1e-6)

    graph = step.get_concrete_function([tf.constant(g) for g in grads[0]]).graph
    writes = [op for op in graph.get_operations() if op.type == "AssignSubVariableOp"]
    assert len(writes) == len(model.trainable_variables)
    for earlier, later in zip(writes, writes[1:]):
        assert earlier in _ancestors(later), f"{later.name} does not wait for {earlier.name}"


@pytest.mark.skipif(keras.backend.backend() != "tensorflow", reason="the fused update is TensorFlow's")
@pytest.mark.parametrize("cls,corrected", [(AdamWeightDecay, False), (Adam, True)])
def test_a_large_variable_is_updated_by_one_xla_kernel_by_the_same_rule(cls, corrected):
    """A kernel of FUSED_UPDATE_SIZE elements takes the fused update, its bias the
    unfused one: in a graph, both follow the reference rule, and the graph holds
    one XLA-compiled call (the kernel's)."""
    import tensorflow as tf
    width = int(FUSED_UPDATE_SIZE ** 0.5)
    model = keras.Sequential([keras.Input((width,)), keras.layers.Dense(width, name="dense")])
    assert math.prod(model.trainable_variables[0].shape) == FUSED_UPDATE_SIZE
    initial = [v.numpy() for v in model.trainable_variables]
    grads = random_grads(model, 3)
    optimizer = cls(learning_rate=0.01, epsilon=1e-6)
    optimizer.build(model.trainable_variables)
    step = tf.function(lambda g: optimizer.apply(g, model.trainable_variables))
    for step_grads in grads:
        step([tf.constant(g) for g in step_grads])
    want = reference(initial, grads, 0.01, [True, False], corrected=corrected)
    for v, w in zip(model.trainable_variables, want):
        np.testing.assert_allclose(v.numpy(), w, rtol=1e-5, atol=1e-6)
    graph = step.get_concrete_function([tf.constant(g) for g in grads[0]]).graph
    compiled = [op for op in graph.get_operations()
                if "_XlaMustCompile" in op.node_def.attr and op.node_def.attr["_XlaMustCompile"].b]
    assert len(compiled) == 1, [op.name for op in compiled]
