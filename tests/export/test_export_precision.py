"""`--export_precision`: what `auto` picks, and every task's SavedModel exported in
bfloat16 (the encoder's weights and compute) with its head and outputs in float32,
the choice recorded in the export and in export_meta.json, served in a fresh process
beside the classifier's float32 export of the same weights."""

import dataclasses
import json
import os

import keras
import numpy as np
import pytest

from checkpoints.ours import save_weights
from export.export_dir import MARKER
from export.export_meta import ExportMetaError, read_export_meta, write_export_meta
from export.export_model import export_after_training, export_model
from export.warmup import read_warmup_requests
from modeling.encoder_interface import build_encoder
from tests.export.test_export_task_model import MODELS, _inputs, _meta
from tests.export_harness import TINY_CONFIG, run_fresh
from training.precision import resolve_export

BF16_UNIT_ROUNDOFF = 2.0 ** -8
ROUNDINGS_PER_LAYER = 10  # as tests/families/test_every_family.py counts them along a Transformer block


def test_auto_is_bfloat16_only_where_the_machine_computes_it_natively():
    assert resolve_export("auto", device="cpu", cpu_flags={"avx2", "fma"})[0] == "float32"
    assert resolve_export("auto", device="cpu", cpu_flags={"avx2", "amx_bf16"})[0] == "bfloat16"
    assert resolve_export("auto", device="cpu", cpu_flags={"avx512_bf16"})[0] == "bfloat16"
    assert resolve_export("auto", device="gpu")[0] == "bfloat16"
    assert resolve_export("float32", device="gpu")[0] == "float32"
    assert resolve_export("bfloat16", device="cpu", cpu_flags=set())[0] == "bfloat16"
    with pytest.raises(ValueError, match=r"export_precision must be one of \['auto', 'float32', 'bfloat16'\]"):
        resolve_export("fp16")
    with pytest.raises(ExportMetaError, match="export_precision must be one of"):
        dataclasses.replace(_meta("classification", "vocab.txt"), export_precision="half")


_SERVE = """
import json
import numpy as np
import tensorflow as tf
import tensorflow_text  # noqa: F401

report = {}
for name, path in ARGS["exports"].items():
    loaded = tf.saved_model.load(path)
    outputs = {}
    for signature, inputs in ARGS["requests"][name.split("/")[0]]:
        served = loaded.signatures[signature](**{
            k: tf.constant(np.vectorize(bytes.fromhex, otypes=[object])(np.asarray(v)) if kind == "bytes"
                           else np.asarray(v, kind)) for k, (kind, v) in inputs.items()})
        outputs.update({f"{signature}/{k}": {"dtype": v.dtype.name,
                                             "value": v.numpy().tolist() if v.dtype.is_floating else None}
                        for k, v in served.items()})
    dtypes = tf.train.load_checkpoint(path + "/variables/variables").get_variable_to_dtype_map()
    outputs["_variables"] = sorted({d.name for d in dtypes.values() if d.is_floating})
    report[name] = outputs
print(json.dumps(report))
"""


def _requests(saved_model):
    """The export's TF Serving warmup requests as JSON: [(signature, {input: (dtype, values)})],
    strings as hex ("bytes": serialized examples are not text)."""
    return [(signature, {name: ("bytes", np.vectorize(bytes.hex)(value).tolist()) if value.dtype == object
                         else (value.dtype.name, value.tolist()) for name, value in inputs.items()})
            for signature, inputs in read_warmup_requests(saved_model)]


# Each task's bfloat16 export; the classifier's also in float32 from the same weights, to compare
# numbers (every head is float32 the same way: `modeling.heads.OUTPUT_DTYPE`).
PRECISIONS = {task: ("float32", "bfloat16") if task == "classification" else ("bfloat16",) for task in MODELS}


@pytest.fixture(scope="module")
def served(tmp_path_factory, uncased_vocab_file):
    """Each task's model, its exports (`PRECISIONS`) and every signature's warmup request served by
    all of them in one fresh process: {task: (model, exports {precision: path},
    {precision: {output: {dtype, value}}})}."""
    tmp = tmp_path_factory.mktemp("precision")
    models, exports = {}, {}
    for task in sorted(MODELS):
        keras.utils.set_random_seed(5)
        models[task] = MODELS[task](build_encoder(TINY_CONFIG))
        run_dir = str(tmp / task / "run")
        write_export_meta(run_dir, _meta(task, uncased_vocab_file, models[task]))
        save_weights(models[task], run_dir)
        meta = read_export_meta(run_dir)
        for precision in PRECISIONS[task]:
            exports[f"{task}/{precision}"] = export_model(meta, str(tmp / task / precision / "1"), run_dir,
                                                          precision)
    requests = {task: _requests(exports[f"{task}/bfloat16"]) for task in MODELS}
    report = json.loads(run_fresh(_SERVE, tmp, exports=exports, requests=requests).strip().splitlines()[-1])
    return {task: (models[task], {p: exports[f"{task}/{p}"] for p in PRECISIONS[task]},
                   {p: report[f"{task}/{p}"] for p in PRECISIONS[task]}) for task in MODELS}


@pytest.mark.parametrize("task", sorted(MODELS))
def test_a_bfloat16_export_serves_float32_outputs_and_the_classifier_near_its_float32_export(served, task):
    """Every floating output float32; the bfloat16 export's encoder weights stored in bfloat16 and
    its head's in float32, as its mark says; the classifier's outputs those of its float32
    export, probabilities within the bound of (1 + 10 L) roundings of 2**-8 on the logits' scale
    (softmax's slope is below 1)."""
    trained, exports, outputs = served[task]
    for precision, path in exports.items():
        with open(os.path.join(path, MARKER), encoding="utf-8") as f:
            assert json.load(f) == {"exported_by": "bert-garden", "export_precision": precision}
    assert outputs["bfloat16"].pop("_variables") == ["bfloat16", "float32"]  # encoder, head
    for key, got in outputs["bfloat16"].items():
        assert got["dtype"] != "bfloat16" and (got["value"] is None or np.isfinite(got["value"]).all()), key
    if "float32" not in outputs:
        return
    assert outputs["float32"].pop("_variables") == ["float32"]
    assert outputs["bfloat16"].keys() == outputs["float32"].keys()
    logits = np.asarray(trained(_inputs(task), training=False)["logits"], np.float32)
    bound = ((1 + ROUNDINGS_PER_LAYER * TINY_CONFIG.num_hidden_layers) * BF16_UNIT_ROUNDOFF
             * max(float(np.abs(logits).max()), 1.0))
    compared = 0
    for key, want in outputs["float32"].items():
        got = outputs["bfloat16"][key]
        assert got["dtype"] == want["dtype"] and want["dtype"] != "bfloat16", key
        if key.endswith("/probabilities"):
            f32, b16 = np.asarray(want["value"]), np.asarray(got["value"])
            np.testing.assert_allclose(b16, f32, rtol=0, atol=bound, err_msg=key)
            assert np.abs(b16 - f32).max() > 0, key  # bfloat16 did compute
            compared += 1
    assert compared == 3  # serving_default, serve_examples, serve_ids


def test_a_runner_records_its_export_precision_in_export_meta(tmp_path, uncased_vocab_file):
    keras.utils.set_random_seed(5)
    trained = MODELS["classification"](build_encoder(TINY_CONFIG))
    run_dir = str(tmp_path / "run")
    save_weights(trained, run_dir)
    meta = _meta("classification", uncased_vocab_file, trained)
    export_after_training(meta, run_dir, None, True, "bfloat16")
    assert read_export_meta(run_dir).export_precision is None  # nothing exported
    export_after_training(meta, run_dir, str(tmp_path / "serving" / "1"), True, "bfloat16")
    assert read_export_meta(run_dir).export_precision == "bfloat16"
    with open(tmp_path / "serving" / "1" / MARKER, encoding="utf-8") as f:
        assert json.load(f)["export_precision"] == "bfloat16"
