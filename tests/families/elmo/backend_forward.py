"""Runs ELMo encoders under whatever KERAS_BACKEND the environment sets.

Usage: python backend_forward.py DIR [NAME ...]
For each case NAME (of `cases.CONFIGS`), DIR/NAME holds options.json and
lm_weights.hdf5; writes DIR/NAME/out_{backend}.npz with the layers of
`cases.SAME_SHAPE`'s batches, from a zero-state and from a stateful encoder,
and (`fresh_empty`) the zero-state one's of a batch of sentences without words.
A subprocess, since the Keras backend is fixed per process.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))

import keras  # noqa: E402
import numpy as np  # noqa: E402

from families.elmo.checkpoints.formats import load_lm_weights  # noqa: E402
from families.elmo.config import ELMoConfig  # noqa: E402
from tests.families.elmo import cases  # noqa: E402


def run(encoder, batches, seq_len):
    """`cases.run_ours`; under JAX one compiled program (its eager mode
    compiles op by op: minutes), the LSTM states threaded from call to call
    as the variables carry them."""
    if keras.backend.backend() != "jax":
        return cases.run_ours(encoder, batches, seq_len)
    import jax
    call = jax.jit(lambda trainable, non_trainable, inputs: encoder.stateless_call(
        trainable, non_trainable, inputs))
    trainable = [v.value for v in encoder.trainable_variables]
    non_trainable = [v.value for v in encoder.non_trainable_variables]
    out = []
    for sentences in batches:
        outputs, non_trainable = call(trainable, non_trainable, cases.inputs(encoder.config, sentences, seq_len))
        out.append(np.stack([np.asarray(h) for h in outputs["encoder_outputs"]], 1))
    return out


def main(directory, names):
    for name in names:
        path = os.path.join(directory, name)
        config = ELMoConfig.from_json_file(os.path.join(path, "options.json"))
        out = {}
        for stateful in (False, True):
            encoder = cases.build(config, stateful=stateful)
            load_lm_weights(encoder, os.path.join(path, "lm_weights.hdf5"))
            for k, layers in enumerate(run(encoder, **cases.SAME_SHAPE)):
                out[f"{'stateful' if stateful else 'fresh'}_{k}"] = layers
            if not stateful:  # three sentences without a word: a batch of no steps
                out["fresh_empty"] = run(encoder, [[[]] * 3], None)[0]
        np.savez(os.path.join(path, f"out_{keras.backend.backend()}.npz"), **out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
