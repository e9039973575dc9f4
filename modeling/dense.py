"""Dense layer whose TensorFlow path lets oneDNN fuse the bias add (and, at
inference, the activation) into the matmul.

Keras contracts a [batch, seq, in] input with `tensordot`, whose reshape sits
between the MatMul and the bias add and hides the pair from TensorFlow's
remapper. Multiplying the flattened 2-D input instead gives one
`_MklFusedMatMul` with bias and GELU as oneDNN post-ops: for BERT-Base's
feed-forward block in bf16, batch 32 x 128, 56 ms became 25 ms. Other
backends run Keras's own `call`; variables, config and math are Keras's.
"""

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="bert_garden")
class Dense(keras.layers.Dense):
    def call(self, inputs, training=None):
        if (keras.backend.backend() != "tensorflow" or self.bias is None
                or self.quantization_mode is not None or self.lora_enabled):
            return super().call(inputs, training=training)
        import tensorflow as tf
        x = ops.matmul(tf.reshape(inputs, [-1, inputs.shape[-1]]), self.kernel)
        x = tf.nn.bias_add(x, ops.convert_to_tensor(self.bias, x.dtype))
        if self.activation is not None:
            # A bf16 activation runs XLA-fused (modeling.activations); oneDNN can take it
            # over only in a graph (the remapper) where nothing needs its input: not training.
            in_graph = not tf.executing_eagerly()
            fused_form = getattr(self.activation, "onednn_form", None) if in_graph and not training else None
            x = (fused_form or self.activation)(x)
        return tf.reshape(x, tf.concat([tf.shape(inputs)[:-1], [self.units]], axis=0))
