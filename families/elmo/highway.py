"""One highway layer of the character CNN (Srivastava et al. 2015), weights
named as the original's `CNN_high_i`."""

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="bert_garden")
class Highway(keras.layers.Layer):
    """`g * relu(x W_transform + b_transform) + (1 - g) * x` with the carry gate
    `g = sigmoid(x W_carry + b_carry)`. The transform is relu whatever the CNN's
    activation, as the original; its carry bias starts at -2 as the original."""

    def build(self, input_shape):
        dim = input_shape[-1]
        normal = keras.initializers.RandomNormal(stddev=(1.0 / dim) ** 0.5)
        self.w_carry = self.add_weight(name="W_carry", shape=(dim, dim), initializer=normal)
        self.b_carry = self.add_weight(name="b_carry", shape=(dim,),
                                       initializer=keras.initializers.Constant(-2.0))
        self.w_transform = self.add_weight(name="W_transform", shape=(dim, dim), initializer=normal)
        self.b_transform = self.add_weight(name="b_transform", shape=(dim,), initializer="zeros")

    def call(self, x):
        carry = ops.sigmoid(ops.matmul(x, self.w_carry) + self.b_carry)
        transform = ops.relu(ops.matmul(x, self.w_transform) + self.b_transform)
        return carry * transform + (1.0 - carry) * x
