"""Runs the XLNet parity cases under whatever KERAS_BACKEND the environment sets.

Usage: python backend_forward.py DIR
DIR holds cases.json (name -> number of steps) and, per case, NAME.config.json,
NAME.backbone.weights.h5, NAME.head_bias.npy and NAME.step{S}.npz; writes
NAME.step{S}.out.npz. A subprocess, since the Keras backend is fixed per process.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))

import keras  # noqa: E402
import numpy as np  # noqa: E402

from families.xlnet.config import XLNetConfig  # noqa: E402
from tests.families.xlnet.cases import build_ours, run_ours  # noqa: E402


def main(directory):
    with open(os.path.join(directory, "cases.json")) as f:
        cases = json.load(f)
    for name, num_steps in cases.items():
        path = lambda suffix: os.path.join(directory, f"{name}.{suffix}")  # noqa: E731
        backbone, head = build_ours(XLNetConfig.from_json_file(path("config.json")))
        backbone.load_weights(path("backbone.weights.h5"))
        head.bias.assign(np.load(path("head_bias.npy")))
        steps = [dict(np.load(path(f"step{s}.npz"))) for s in range(num_steps)]
        for s, result in enumerate(run_ours(backbone, head, steps)):
            np.savez(path(f"step{s}.out.npz"), backend=keras.backend.backend(), **result)


if __name__ == "__main__":
    main(sys.argv[1])
