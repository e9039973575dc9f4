"""Runs saved `.keras` models under whatever KERAS_BACKEND the environment sets.

Usage: python keras_file_forward.py DIR NAME...
For each NAME, loads DIR/NAME.keras, calls it on DIR/NAME.inputs.npz and writes
its outputs to DIR/NAME.<backend>.npz. A subprocess of the model tests, since
the Keras backend is fixed per process.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import keras  # noqa: E402
import numpy as np  # noqa: E402

import tasks.tagging.feature_based_tagger  # noqa: E402,F401  (registers the model classes)
from contracts import registry, task_registry  # noqa: E402

registry.families()  # every family's encoder and pretrainer classes registered
task_registry.tasks()  # every task's models registered
from tests.modeling.model_test_case import flat_outputs  # noqa: E402


def main(directory, names):
    backend = keras.backend.backend()
    for name in names:
        model = keras.saving.load_model(os.path.join(directory, f"{name}.keras"))
        inputs = dict(np.load(os.path.join(directory, f"{name}.inputs.npz")))
        np.savez(os.path.join(directory, f"{name}.{backend}.npz"), **flat_outputs(model(inputs)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
