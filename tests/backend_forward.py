"""Runs our encoder under whatever KERAS_BACKEND the environment sets.

Usage: python backend_forward.py WEIGHTS_DIR INPUTS_NPZ OUTPUT_NPZ
Executed in a subprocess by the tests, since the Keras backend is fixed per process.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import keras  # noqa: E402
import numpy as np  # noqa: E402

from checkpoints.loader import load_into  # noqa: E402
from families.bert.config import BertConfig
from families.bert.encoder import BertEncoder  # noqa: E402


def main(weights_dir, inputs_file, output_file):
    encoder = BertEncoder(BertConfig.from_json_file(os.path.join(weights_dir, "bert_config.json")))
    load_into(encoder, weights_dir, strict=True)
    inputs = {k: v for k, v in np.load(inputs_file).items()}
    outputs = encoder(inputs)
    np.savez(output_file, backend=keras.backend.backend(),
             sequence_output=keras.ops.convert_to_numpy(outputs["sequence_output"]),
             pooled_output=keras.ops.convert_to_numpy(outputs["pooled_output"]))


if __name__ == "__main__":
    main(*sys.argv[1:4])
