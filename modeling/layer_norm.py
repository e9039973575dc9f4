"""LayerNormalization whose bf16 TensorFlow path is one fused XLA kernel
(see `modeling.xla_fusion`); same variables, config and math as Keras's."""

import keras
from keras import ops

from modeling.xla_fusion import runs_fused, xla_compiled


def _layer_norm(x, gamma, beta, axis, epsilon):
    return ops.cast(ops.layer_normalization(x, gamma, beta, axis, epsilon), x.dtype)


@keras.saving.register_keras_serializable(package="bert_garden")
class LayerNorm(keras.layers.LayerNormalization):
    def call(self, inputs):
        if runs_fused(inputs) and self.scale and self.center and not self.rms_scaling:
            axis = tuple(self.axis) if isinstance(self.axis, (list, tuple)) else self.axis
            return xla_compiled(_layer_norm)(inputs, ops.copy(self.gamma),
                                             ops.copy(self.beta), axis,
                                             float(self.epsilon))
        return super().call(inputs)
