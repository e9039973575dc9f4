"""The original BERT initialiser: truncated normal with `initializer_range` stddev."""

import keras


def bert_initializer(stddev):
    return keras.initializers.TruncatedNormal(stddev=stddev)
