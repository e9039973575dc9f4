"""What the original `bilm` (0.1.post5, written for TensorFlow 1) needs to run
under TensorFlow 2: legacy Keras, `tf.compat.v1` standing in for
`tensorflow`, graph mode. Import it first, in a process of the original's own
(`bilm_reference.py`, `bilm_training_reference.py`): none of it may leak into
a test process."""

import os
import sys

os.environ["TF_USE_LEGACY_KERAS"] = "1"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
sys.modules["tensorflow"] = tf1
tf1.disable_eager_execution()
