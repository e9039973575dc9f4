"""The checks every model class of `modeling/` passes, in the spirit of
keras-hub's `run_backbone_test`:

- serialisation: the config is JSON, `from_config(get_config())` rebuilds the
  same config, and with the same weights the rebuilt model, and the model saved
  to and loaded from a `.keras` file, give identical outputs;
- backends: the `.keras` file loaded under JAX gives TensorFlow's outputs;
- mixed precision: built under `mixed_bfloat16` the model keeps float32
  variables, runs, and returns float32 logits (encoder features in bfloat16).

A `ModelCase` says how to build one model and its inputs;
`tests/modeling/test_models.py` applies the checks to every model class.
"""

import dataclasses
import json
import os
import subprocess
import sys
from typing import Callable

import keras
import numpy as np

from tests.conftest import JAX_CPU, ROOT

# fp32 through two layers on values of order 1, as tests/families/bert/test_backends.py.
BACKEND_ATOL = 1e-5
MIXED_POLICY = "mixed_bfloat16"


@dataclasses.dataclass(frozen=True)
class ModelCase:
    """`build()` makes the model under the current dtype policy; `inputs()` a
    small batch of int32 NumPy inputs; `feature_outputs` are the outputs in the
    compute dtype (all others are float32 logits)."""

    name: str
    build: Callable[[], keras.Model]
    inputs: Callable[[], dict]
    feature_outputs: tuple = ()


def flat_outputs(outputs):
    """{name: NumPy array}; a list output `x` becomes `x/0`, `x/1`, ..."""
    flat = {}
    for name, value in outputs.items():
        for key, item in ([(f"{name}/{i}", v) for i, v in enumerate(value)]
                          if isinstance(value, (list, tuple)) else [(name, value)]):
            flat[key] = keras.ops.convert_to_numpy(item)
    return flat


def _assert_identical(actual, expected, what):
    assert actual.keys() == expected.keys(), what
    for name in expected:
        np.testing.assert_array_equal(actual[name], expected[name], err_msg=f"{what}: {name}")


def build_seeded(case, seed=0):
    keras.utils.set_random_seed(seed)
    return case.build()


def check_serialization(case, tmp_path):
    model = build_seeded(case)
    inputs = case.inputs()
    expected = flat_outputs(model(inputs))
    config = model.get_config()
    json.dumps(keras.saving.serialize_keras_object(model))
    revived = type(model).from_config(config)
    assert revived.get_config() == config
    revived.set_weights(model.get_weights())
    _assert_identical(flat_outputs(revived(inputs)), expected, "from_config")
    path = os.path.join(str(tmp_path), f"{case.name}.keras")
    model.save(path)
    loaded = keras.saving.load_model(path)
    assert type(loaded) is type(model)
    _assert_identical(flat_outputs(loaded(inputs)), expected, "load_model")


def jax_outputs(cases, directory):
    """{case name: (TensorFlow outputs, JAX outputs)}: each model saved here and
    run again in one JAX subprocess."""
    tensorflow = {}
    for case in cases:
        model = build_seeded(case)
        inputs = case.inputs()
        tensorflow[case.name] = flat_outputs(model(inputs))
        model.save(os.path.join(directory, f"{case.name}.keras"))
        np.savez(os.path.join(directory, f"{case.name}.inputs.npz"), **inputs)
    script = os.path.join(ROOT, "tests", "modeling", "keras_file_forward.py")
    subprocess.run([sys.executable, script, directory, *tensorflow], check=True,
                   env={**os.environ, **JAX_CPU})
    return {name: (outputs, dict(np.load(os.path.join(directory, f"{name}.jax.npz"))))
            for name, outputs in tensorflow.items()}


def check_backends_agree(tensorflow, jax):
    assert tensorflow.keys() == jax.keys()
    for name in tensorflow:
        np.testing.assert_allclose(jax[name], tensorflow[name], atol=BACKEND_ATOL, err_msg=name)


def check_mixed_precision(case):
    previous = keras.config.dtype_policy()
    keras.config.set_dtype_policy(MIXED_POLICY)
    try:
        model = build_seeded(case)
    finally:
        keras.config.set_dtype_policy(previous)
    assert model.dtype_policy.name == MIXED_POLICY
    assert {keras.backend.standardize_dtype(w.dtype) for w in model.weights} == {"float32"}
    outputs = model(case.inputs())
    for name, value in outputs.items():
        expected = "bfloat16" if name in case.feature_outputs else "float32"
        for item in value if isinstance(value, (list, tuple)) else [value]:
            assert keras.backend.standardize_dtype(item.dtype) == expected, name
            assert np.isfinite(keras.ops.convert_to_numpy(keras.ops.cast(item, "float32"))).all(), name
