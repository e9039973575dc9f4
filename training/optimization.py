"""Optimizers and learning-rate schedules: BERT's AdamW as in the original
code, LAMB for large batches, and bias-corrected Adam as OpenAI GPT's code.

All follow google-research/bert: weight decay 0.01 that skips LayerNorm and
bias variables, and gradients clipped to global norm 1.0. The learning rate
warms up linearly, then decays to 0 over all training steps, linearly (BERT)
or on a cosine (GPT). Written with `keras.ops` only, so the same optimizers
run on the TensorFlow and JAX backends.
"""

import dataclasses
import math
import re

import keras
from keras import ops

from modeling.xla_fusion import xla_compiled
from training.update_chain import UpdateChain

OPTIMIZERS = ("adamw", "lamb", "adam")
SCHEDULES = ("linear", "cosine")
# Adam's epsilon by optimizer: google-research/bert's 1e-6, the GPT code's (and torch's) 1e-8.
DEFAULT_EPSILON = {"adamw": 1e-6, "lamb": 1e-6, "adam": 1e-8}

# Matched against `variable.path` like the original's list against TF1 names.
NO_DECAY_PATTERN = re.compile(r"LayerNorm|layer_norm|bias")
# On the TensorFlow backend, a variable of at least this many elements takes its whole
# update as one XLA kernel (`_fused_step`), which reads the gradient, moments and weights
# once: unfused, each of the update's dozen elementwise ops is a pass over memory of its own.
FUSED_UPDATE_SIZE = 1 << 18


def _adam_update(gradient, m, v, variable, corrections, beta_1, beta_2, epsilon, decay_rate):
    """(new m, new v, update) of decoupled weight decay Adam: `corrections` None (the
    original BERT's, no bias correction) or (1 - beta_1^t, 1 - beta_2^t)."""
    m = beta_1 * m + (1.0 - beta_1) * gradient
    v = beta_2 * v + (1.0 - beta_2) * ops.square(gradient)
    m_hat, v_hat = (m, v) if corrections is None else (m / corrections[0], v / corrections[1])
    update = m_hat / (ops.sqrt(v_hat) + epsilon)
    if decay_rate:
        update = update + decay_rate * variable
    return m, v, update


def _fused_step(gradient, m, v, variable, learning_rate, corrections, beta_1, beta_2, epsilon, decay_rate):
    """(new m, new v, new variable), XLA-compiled into one kernel."""
    m, v, update = _adam_update(gradient, m, v, variable, corrections, beta_1, beta_2, epsilon, decay_rate)
    return m, v, variable - learning_rate * update


@keras.saving.register_keras_serializable(package="bert_garden")
class WarmupLinearDecay(keras.optimizers.schedules.LearningRateSchedule):
    """`peak * step / warmup` during warmup, then `peak * (1 - step / total)`.

    The decay runs over all `num_train_steps` (not from the end of warmup),
    as `polynomial_decay` does in the original `optimization.py`.
    """

    def __init__(self, peak_learning_rate, num_train_steps, num_warmup_steps=0):
        self.peak_learning_rate = peak_learning_rate
        self.num_train_steps = num_train_steps
        self.num_warmup_steps = num_warmup_steps

    def __call__(self, step):
        step = ops.cast(step, "float32")
        decayed = self.peak_learning_rate * ops.maximum(
            0.0, 1.0 - ops.minimum(step, self.num_train_steps) / max(self.num_train_steps, 1))
        if not self.num_warmup_steps:
            return decayed
        warmup = self.peak_learning_rate * step / self.num_warmup_steps
        return ops.where(step < self.num_warmup_steps, warmup, decayed)

    def get_config(self):
        return {"peak_learning_rate": self.peak_learning_rate,
                "num_train_steps": self.num_train_steps,
                "num_warmup_steps": self.num_warmup_steps}


@keras.saving.register_keras_serializable(package="bert_garden")
class WarmupCosineDecay(WarmupLinearDecay):
    """`peak * step / warmup` during warmup, then `peak * (1 + cos(pi * step /
    total)) / 2`: the original GPT code's `warmup_cosine`, whose cosine runs
    over all `num_train_steps` (not from the end of warmup), as the linear
    decay here does; GPT pretrained with it (2,000 warmup steps)."""

    def __call__(self, step):
        step = ops.cast(step, "float32")
        progress = ops.minimum(step, self.num_train_steps) / max(self.num_train_steps, 1)
        decayed = self.peak_learning_rate * 0.5 * (1.0 + ops.cos(math.pi * progress))
        if not self.num_warmup_steps:
            return decayed
        warmup = self.peak_learning_rate * step / self.num_warmup_steps
        return ops.where(step < self.num_warmup_steps, warmup, decayed)


SCHEDULE_TYPES = {"linear": WarmupLinearDecay, "cosine": WarmupCosineDecay}


class _DecoupledWeightDecay(keras.optimizers.Optimizer):
    """Adam moments plus a per-variable `update` that already holds the weight
    decay term (`update = adam_direction + rate * w`, then `w -= lr * update`).

    `aggregate_gradients=False` is for a caller that has already summed the
    gradients over replicas (the trainer does, so that clipping sees the global
    norm of the whole batch's gradient); the optimizer then skips its own sum.
    """

    def __init__(self, learning_rate, weight_decay_rate=0.01, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-6, aggregate_gradients=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.weight_decay_rate = weight_decay_rate
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.aggregate_gradients = aggregate_gradients
        self._update_chain = UpdateChain()

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(
            var_list, ["momentum", "velocity"])
        self._decayed = [NO_DECAY_PATTERN.search(v.path) is None for v in var_list]

    def _bias_corrections(self, dtype):
        """None, or (1 - beta_1^t, 1 - beta_2^t) at this step `t`."""
        return None

    def _scale(self, update, variable, decayed):
        """Hook for layer-wise adaptation (LAMB); identity for AdamW."""
        return update

    def apply(self, grads, trainable_variables=None):
        self._update_chain = UpdateChain()  # a new graph each call: nothing to wait for yet
        return super().apply(grads, trainable_variables)

    def update_step(self, gradient, variable, learning_rate):
        with self._update_chain.link(variable):
            self._update(gradient, variable, learning_rate)

    def _fuses(self, variable):
        return (keras.backend.backend() == "tensorflow" and type(self)._scale is _DecoupledWeightDecay._scale
                and math.prod(variable.shape) >= FUSED_UPDATE_SIZE)

    def _update(self, gradient, variable, learning_rate):
        index = self._get_variable_index(variable)
        m, v = self._momentums[index], self._velocities[index]
        decayed = self._decayed[index]
        args = (ops.cast(gradient, variable.dtype), m, v, variable)
        hyper = (self._bias_corrections(variable.dtype), self.beta_1, self.beta_2, self.epsilon,
                 self.weight_decay_rate if decayed else 0.0)
        learning_rate = ops.cast(learning_rate, variable.dtype)
        if self._fuses(variable):
            new_m, new_v, new_variable = xla_compiled(_fused_step)(
                *[ops.copy(x) for x in args], learning_rate, *hyper)
            self.assign(m, new_m)
            self.assign(v, new_v)
            self.assign(variable, new_variable)
            return
        new_m, new_v, update = _adam_update(*args, *hyper)
        self.assign(m, new_m)
        self.assign(v, new_v)
        self.assign_sub(variable, learning_rate * self._scale(update, variable, decayed))

    def _all_reduce_sum_gradients(self, grads_and_vars):
        if self.aggregate_gradients:
            return super()._all_reduce_sum_gradients(grads_and_vars)
        return grads_and_vars

    def get_config(self):
        config = super().get_config()
        config.update(weight_decay_rate=self.weight_decay_rate, beta_1=self.beta_1,
                      beta_2=self.beta_2, epsilon=self.epsilon,
                      aggregate_gradients=self.aggregate_gradients)
        return config


@keras.saving.register_keras_serializable(package="bert_garden")
class AdamWeightDecay(_DecoupledWeightDecay):
    """The original BERT optimizer: Adam without bias correction, decoupled
    weight decay (not L2 through the moments) on all but LayerNorm and bias."""


@keras.saving.register_keras_serializable(package="bert_garden")
class Adam(_DecoupledWeightDecay):
    """Adam with bias correction (Kingma and Ba) and decoupled weight decay on
    all but LayerNorm and bias: the update of the original GPT code's `adam`
    (its `l2` on matrices only, which are the variables decayed here) and of
    torch's `AdamW`."""

    def _bias_corrections(self, dtype):
        step = ops.cast(self.iterations + 1, dtype)
        return (1.0 - ops.power(ops.cast(self.beta_1, dtype), step),
                1.0 - ops.power(ops.cast(self.beta_2, dtype), step))


@keras.saving.register_keras_serializable(package="bert_garden")
class Lamb(Adam):
    """LAMB (You et al., 2019): bias-corrected Adam direction plus weight decay,
    rescaled per variable by the trust ratio ||w|| / ||update||. LayerNorm and
    bias variables get neither decay nor the trust ratio."""

    def _scale(self, update, variable, decayed):
        if not decayed:
            return update
        w_norm = ops.sqrt(ops.sum(ops.square(variable)))
        u_norm = ops.sqrt(ops.sum(ops.square(update)))
        ratio = ops.where((w_norm > 0) & (u_norm > 0), w_norm / ops.maximum(u_norm, 1e-30), 1.0)
        return ratio * update


@dataclasses.dataclass(frozen=True)
class OptimizerConfig:
    """Optimizer hyper-parameters; the defaults are BERT's paper (and original
    code); `epsilon` None takes the optimizer's own (`DEFAULT_EPSILON`)."""

    name: str = "adamw"
    learning_rate: float = 1e-4
    num_warmup_steps: int = 0
    weight_decay_rate: float = 0.01
    beta_1: float = 0.9
    beta_2: float = 0.999
    epsilon: float = None
    clip_norm: float = 1.0
    schedule: str = "linear"

    def __post_init__(self):
        if self.name not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {self.name!r}")
        if self.schedule not in SCHEDULES:
            raise ValueError(f"learning-rate schedule must be one of {SCHEDULES}, got {self.schedule!r}")

    def build(self, num_train_steps, aggregate_gradients=True):
        """The optimizer with its warmup + decay schedule over `num_train_steps`."""
        cls = {"adamw": AdamWeightDecay, "lamb": Lamb, "adam": Adam}[self.name]
        return cls(
            learning_rate=SCHEDULE_TYPES[self.schedule](self.learning_rate, num_train_steps,
                                                        self.num_warmup_steps),
            weight_decay_rate=self.weight_decay_rate, beta_1=self.beta_1, beta_2=self.beta_2,
            epsilon=DEFAULT_EPSILON[self.name] if self.epsilon is None else self.epsilon,
            global_clipnorm=self.clip_norm or None,
            aggregate_gradients=aggregate_gradients, name=self.name)
