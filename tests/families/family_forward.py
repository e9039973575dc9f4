"""Runs a registered family's encoder under whatever KERAS_BACKEND the environment sets.

Usage: python family_forward.py FAMILY DIR
DIR holds the config file the family's record names (`config_file`),
`encoder.weights.h5` and `inputs.npz`; writes `outputs.npz`: the backend's name
and every encoder output (`encoder_outputs` stacked on a first axis). A
subprocess, since the Keras backend is fixed per process.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import keras  # noqa: E402
import numpy as np  # noqa: E402

from contracts import registry  # noqa: E402


def main(name, directory):
    family = registry.family(name)
    config = family.config_type.from_json_file(os.path.join(directory, family.config_file))
    encoder = family.build_encoder(config)
    encoder.load_weights(os.path.join(directory, "encoder.weights.h5"))
    inputs = dict(np.load(os.path.join(directory, "inputs.npz")))
    # Compiled whole, as Keras's predict runs a model: op by op, JAX would compile every op of the forward alone.
    outputs = encoder.predict(inputs, batch_size=len(inputs["input_mask"]), verbose=0)
    arrays = {key: np.stack([keras.ops.convert_to_numpy(v) for v in value])
              if isinstance(value, (list, tuple)) else keras.ops.convert_to_numpy(value)
              for key, value in outputs.items()}
    np.savez(os.path.join(directory, "outputs.npz"), backend=keras.backend.backend(), **arrays)


if __name__ == "__main__":
    main(*sys.argv[1:3])
