"""Runs the SQuAD head under whatever KERAS_BACKEND the environment sets.

Usage: python squad_head_forward.py DIR
DIR holds head.json (the head's Keras config), weights.npz (its weights in order,
`w0`, `w1`, ...) and inputs.npz (`hidden`, `p_mask`); writes outputs.npz. A
subprocess, since the Keras backend is fixed per process.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))

import keras  # noqa: E402
import numpy as np  # noqa: E402

from families.xlnet.squad_head import XLNetSquadHead  # noqa: E402


def main(directory):
    with open(os.path.join(directory, "head.json")) as f:
        head = XLNetSquadHead.from_config(json.load(f))
    head.build((None, None, head.d_model))
    weights = np.load(os.path.join(directory, "weights.npz"))
    head.set_weights([weights[f"w{i}"] for i in range(len(weights.files))])
    inputs = np.load(os.path.join(directory, "inputs.npz"))
    out = head(inputs["hidden"], inputs["p_mask"])
    np.savez(os.path.join(directory, "outputs.npz"), backend=keras.backend.backend(),
             **{k: keras.ops.convert_to_numpy(v) for k, v in out.items()})


if __name__ == "__main__":
    main(sys.argv[1])
