"""Runs the GPT parity cases under whatever KERAS_BACKEND the environment sets.

Usage: python model_backend_forward.py DIR
DIR holds our weights (`weights.safetensors`, `gpt_config.json`), `single.npz`
(`input_word_ids`, `input_mask` [batch, seq]) and `choices.npz` (the same
[batch, choices, seq] plus `mc_token_ids`); writes `single.out.npz` and
`choices.out.npz`. A subprocess, since the Keras backend is fixed per process.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))

import keras  # noqa: E402
import numpy as np  # noqa: E402

from tests.families.gpt.model_cases import build_ours, run_choices, run_single  # noqa: E402


def main(directory):
    model = build_ours(directory)
    single = dict(np.load(os.path.join(directory, "single.npz")))
    choices = dict(np.load(os.path.join(directory, "choices.npz")))
    backend = keras.backend.backend()
    np.savez(os.path.join(directory, "single.out.npz"), backend=backend, **run_single(model, single))
    np.savez(os.path.join(directory, "choices.out.npz"), backend=backend, **run_choices(model, choices))


if __name__ == "__main__":
    main(sys.argv[1])
