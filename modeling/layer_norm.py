"""LayerNormalization whose bf16 TensorFlow path is one fused XLA kernel
(see `modeling.xla_fusion`); same variables, config and math as Keras's."""

import keras
from keras import ops

from modeling.xla_fusion import runs_fused, xla_compiled


def _layer_norm_last_axis(x, gamma, beta, epsilon):
    """Keras's formula over the last axis, in float32; needs no static shape, so the
    relaxed traces of the compiled function (unknown batch and length) work."""
    y = ops.cast(x, "float32")
    mean, variance = ops.moments(y, axes=[-1], keepdims=True)
    inv = ops.rsqrt(variance + epsilon) * ops.cast(gamma, "float32")
    return ops.cast(y * inv + (ops.cast(beta, "float32") - mean * inv), x.dtype)


@keras.saving.register_keras_serializable(package="bert_garden")
class LayerNorm(keras.layers.LayerNormalization):
    def call(self, inputs):
        axes = self.axis if isinstance(self.axis, (list, tuple)) else [self.axis]
        last_axis_only = list(axes) in ([-1], [len(inputs.shape) - 1])
        if (runs_fused(inputs) and last_axis_only and self.scale and self.center
                and not self.rms_scaling):
            return xla_compiled(_layer_norm_last_axis)(
                inputs, ops.copy(self.gamma), ops.copy(self.beta), float(self.epsilon))
        return super().call(inputs)
