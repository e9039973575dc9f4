"""Every registered model family, tested the same way: its record, its encoder
(serialised and rebuilt, under JAX, under mixed bfloat16), its text side
(Python ids equal the graph's) and each fine-tuning task it declares, run as a
user runs it, with the exports served in a fresh process.

A family joins by being registered (`contracts/registry.py`) and giving a kit,
`tests/families/<name>/kit.py`: `vocabulary(tmp_path_factory)` (the path of a
vocabulary file of its text side, or None for a family whose models run
without one: ELMo's) and `tiny_config()` (a config of its `config_type` small
enough for tests, whose vocabulary size fits that file); optionally
`hostile_texts()`, byte strings every serving SavedModel and the TF Hub pair
of the family must answer with defined outputs (ELMo's).
"""

import concurrent.futures
import csv
import importlib
import json
import math
import os
import shutil
import sys

import keras
import numpy as np
import pytest
import tensorflow as tf
from seqeval.metrics import f1_score

from checkpoints.ours import save_weights
from checkpoints.pretrained import load_pretrained
from contracts import registry, task_registry
from data.text.text_side import TextPacker
from modeling.encoder_interface import ENCODER_OUTPUTS, check_encoder
from modeling.feature_based_models import feature_based
from tasks.classification.model import FeatureBasedClassifier, SequenceClassifier
from tasks.question_answering.squad_reader import read_squad_file
from tests import warm_python
from tests.conftest import FIXTURES, JAX_CPU, ROOT, read_json, read_squad_predictions
from tests.data.text.test_text_side import TEXTS_A, TEXTS_B
from tests.export_harness import HOSTILE_TEXTS, run_fresh

ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}
SQUAD_FILE = os.path.join(FIXTURES, "squad_v2_tiny.json")
CONLL_DIR = os.path.join(FIXTURES, "conll_tiny")
SEQ_LENGTH = 16
HUB_SEQ_LENGTH = 32
# A small batch: a pair, a single text padded, and one cut to SEQ_LENGTH.
BATCH_A = ["The red dog barks at night.", "A cat.", "Every cow eats grass in the morning " * 3]
BATCH_B = ["My dog likes bones.", "", "so it moos."]
FEATURE_LINES = ["The red dog barks at night. ||| Every dog eats bones.", "A cat meows.", ""]
# Dev (= test) pairs of the classification run, a similarity task (the pair's
# order carries no meaning: GPT reads it in both orders): 5 examples, so that
# no proper subset of them has the accuracy of all five unless that is 0 or 1.
HOUSES = [("The red house has two doors.", "It is red.", "yes"),
          ("The old house has no doors.", "An old house.", "no"),
          ("A tall house.", "It is tall.", "no"), ("Red doors!", "Doors.", "yes"),
          ("The house is red.", "A red house.", "yes")]
TRAIN_HOUSES = HOUSES + [("An old door.", "Old.", "no"), ("Green rooms.", "Rooms.", "no"),
                         ("red", "red", "yes")]
SERVED = ("classification", "question_answering", "tagging", "multiple_choice")
FEATURE_HEAD = {"lstm_units": 6, "lstm_layers": 1}  # a feature-based family's task BiLSTM


# Under xdist (scripts/test.sh) each family's tests run in one worker, beside the other families'.
@pytest.fixture(scope="module", params=[pytest.param(name, marks=pytest.mark.xdist_group(f"every_family_{name}"))
                                        for name in registry.names()])
def name(request):
    return request.param


@pytest.fixture(scope="module")
def family(name):
    return registry.family(name)


@pytest.fixture(scope="module")
def kit(name):
    return importlib.import_module(f"tests.families.{name}.kit")


@pytest.fixture(scope="module")
def vocabulary(kit, tmp_path_factory):
    return kit.vocabulary(tmp_path_factory)


@pytest.fixture(scope="module")
def config(kit):
    return kit.tiny_config()


@pytest.fixture(scope="module")
def text_side(family, vocabulary):
    return family.text_side.from_file(vocabulary, family.text_side.do_lower_case_default)


@pytest.fixture(scope="module")
def batch(text_side):
    """Encoder inputs of a small batch, made by the family's own text side."""
    return text_side.encode_texts(BATCH_A, BATCH_B, SEQ_LENGTH)


@pytest.fixture(scope="module")
def encoder(family, config):
    keras.utils.set_random_seed(1)
    return family.build_encoder(config)


def outputs_of(encoder, inputs):
    """Every encoder output as numpy, `encoder_outputs` stacked: [layers, batch, seq, hidden]."""
    outputs = encoder(inputs, training=False)
    assert set(outputs) == set(ENCODER_OUTPUTS)
    return {key: np.stack([keras.ops.convert_to_numpy(v) for v in value])
            if isinstance(value, (list, tuple)) else keras.ops.convert_to_numpy(value)
            for key, value in outputs.items()}


def real_tokens(outputs, mask):
    """The outputs at real tokens only (padding has no defined value)."""
    real = mask.astype(bool)
    return {"sequence_output": outputs["sequence_output"][real],
            "encoder_outputs": outputs["encoder_outputs"][:, real],
            "pooled_output": outputs["pooled_output"]}


def float32_tolerance(encoder, outputs):
    """The same float32 computation in another summation order: each of the L
    layers sums at most n products per value (n: the largest kernel fan-in, or
    the sequence length over which attention sums), a rounding of eps each, on
    values of about the outputs' scale (LayerNorm keeps them near unit size)."""
    layers = outputs["encoder_outputs"].shape[0]
    fan_in = max([int(np.prod(w.shape[:-1])) for w in encoder.weights if w.path.endswith("kernel")]
                 + [SEQ_LENGTH])
    scale = max(1.0, max(float(np.abs(v).max()) for v in outputs.values()))
    return layers * fan_in * float(np.finfo(np.float32).eps) * scale


# 1. The record.

def test_the_record_is_complete_and_consistent(name, family, kit):
    assert family.name == name
    assert family.text_side.family == name
    assert family.config_file.endswith(".json") and os.path.basename(family.config_file) == \
        family.config_file
    assert set(family.tasks) <= set(task_registry.names()) and family.tasks
    preset = family.config_type.from_preset(family.tiny_preset)
    assert type(preset) is family.config_type and registry.family_of(preset) is family
    check_encoder(family.build_encoder(preset))
    tiny = kit.tiny_config()
    assert registry.family_of(tiny) is family
    assert registry.family_with_config_file(family.config_file) is family


# 2. Build, serialise, rebuild.

def test_config_round_trips_through_its_dict_and_json_file(family, config, tmp_path):
    assert family.config_type.from_dict(config.to_dict()) == config
    path = str(tmp_path / family.config_file)
    config.to_json_file(path)
    assert family.config_type.from_json_file(path) == config
    assert read_json(path) == json.loads(json.dumps(config.to_dict()))


def test_the_encoder_rebuilt_from_its_serialisation_computes_the_same(encoder, config, batch):
    rebuilt = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(encoder))
    assert type(rebuilt) is type(encoder) and rebuilt.config == config
    assert [w.path for w in rebuilt.weights] == [w.path for w in encoder.weights]
    rebuilt.set_weights(encoder.get_weights())
    expected, got = outputs_of(encoder, batch), outputs_of(rebuilt, batch)
    for key in ENCODER_OUTPUTS:  # the same ops on the same values in the same process
        np.testing.assert_array_equal(got[key], expected[key], err_msg=key)


def _checkpoint_in(directory):
    """What `--init_checkpoint` names for a converted checkpoint: a TensorFlow
    checkpoint's prefix, else the directory (Hugging Face, keras-hub, ours)."""
    prefixes = sorted(f[:-len(".index")] for f in os.listdir(directory) if f.endswith(".index"))
    return os.path.join(directory, prefixes[0]) if prefixes else str(directory)


def test_every_checkpoint_format_it_writes_round_trips_bit_identical(family, config, encoder,
                                                                     vocabulary, batch, tmp_path):
    """Ours -> each of `output_formats` -> read back through the shared loader:
    every encoder weight the format holds exactly as before, which must be all
    but the `fine_tuning_weights` (XLNet's sequence summary has no place in its
    TF1 release layout), and the outputs those weights make."""
    assert family.output_formats, f"{family.name} writes no checkpoint format"
    ours = tmp_path / "ours"
    save_weights(encoder, str(ours))
    for output_format in family.output_formats:
        written = tmp_path / output_format
        family.convert(str(ours), str(written), output_format, config, vocabulary,
                       family.text_side.do_lower_case_default)
        keras.utils.set_random_seed(2)
        fresh = family.build_encoder(config)
        loaded = set(load_pretrained(fresh, fresh, _checkpoint_in(written)).loaded)
        for got, want in zip(fresh.weights, encoder.weights):
            if want.path in loaded:
                np.testing.assert_array_equal(got.numpy(), want.numpy(),
                                              err_msg=f"{output_format}: {want.path}")
        got, expected = outputs_of(fresh, batch), outputs_of(encoder, batch)
        whole = loaded >= {w.path for w in encoder.weights}
        for key in ENCODER_OUTPUTS if whole else ("sequence_output", "encoder_outputs"):
            np.testing.assert_array_equal(got[key], expected[key], err_msg=f"{output_format}: {key}")


# 3. Both backends.

def test_the_jax_backend_computes_the_same(name, family, encoder, config, batch, tmp_path):
    pytest.importorskip("jax")
    config.to_json_file(str(tmp_path / family.config_file))
    encoder.save_weights(str(tmp_path / "encoder.weights.h5"))
    np.savez(tmp_path / "inputs.npz", **batch)
    script = os.path.join(ROOT, "tests", "families", "family_forward.py")
    done = warm_python.run([sys.executable, script, name, str(tmp_path)], capture_output=True,
                           text=True, timeout=600,
                           env={**ENV, **JAX_CPU})
    assert done.returncode == 0, done.stderr[-3000:]
    jax_outputs = dict(np.load(tmp_path / "outputs.npz"))
    assert str(jax_outputs.pop("backend")) == "jax"
    expected = outputs_of(encoder, batch)
    tolerance = float32_tolerance(encoder, expected)
    expected, got = (real_tokens(o, batch["input_mask"]) for o in (expected, jax_outputs))
    for key, value in expected.items():
        np.testing.assert_allclose(got[key], value, rtol=0, atol=tolerance, err_msg=key)


# 4. Mixed precision.

# bfloat16 keeps 8 significant bits: each rounding to it errs by at most
# u = 2**-8 relative. Under `mixed_bfloat16` every layer's inputs and outputs
# are rounded; along a Transformer block there are at most 10 roundings in
# sequence (projections, scores, probabilities, context, output projection,
# residual with LayerNorm, FFN input, activation, output, residual with
# LayerNorm), one more for the embeddings, and errors of successive roundings
# add. On values of the outputs' scale (LayerNorm keeps them near unit size) the
# outputs of L layers are then within (1 + 10 L) u of float32's.
BF16_UNIT_ROUNDOFF = 2.0 ** -8
ROUNDINGS_PER_LAYER = 10


def test_mixed_bfloat16_runs_finite_and_near_float32(family, encoder, config, batch):
    previous = keras.config.dtype_policy()
    keras.config.set_dtype_policy("mixed_bfloat16")
    try:
        mixed = family.build_encoder(config)
    finally:
        keras.config.set_dtype_policy(previous)
    assert {w.dtype for w in mixed.weights} == {"float32"}  # variables stay float32
    mixed.set_weights(encoder.get_weights())
    got = outputs_of(mixed, batch)
    assert {np.dtype(v.dtype).name for v in got.values()} <= {"bfloat16", "float32"}
    got = {k: np.asarray(v, np.float32) for k, v in got.items()}
    expected = outputs_of(encoder, batch)
    layers = expected["encoder_outputs"].shape[0]
    scale = max(float(np.abs(v).max()) for v in expected.values())
    bound = (1 + ROUNDINGS_PER_LAYER * layers) * BF16_UNIT_ROUNDOFF * scale
    expected, got = (real_tokens(o, batch["input_mask"]) for o in (expected, got))
    for key, value in expected.items():
        assert np.isfinite(got[key]).all(), key
        np.testing.assert_allclose(got[key], value, rtol=0, atol=bound, err_msg=key)
    # bfloat16 did compute: float32 would agree to its own eps.
    assert max(np.abs(got[k] - expected[k]).max() for k in expected) > 1e-4


def test_a_regression_score_keeps_float32_resolution_under_mixed_bfloat16(family, config, batch):
    """The output layer computes in float32: in bfloat16 (8 significant bits)
    nearly equal scores round to one value, and a constant STS-B prediction has
    no Pearson correlation."""
    previous = keras.config.dtype_policy()
    keras.config.set_dtype_policy("mixed_bfloat16")
    try:
        encoder = family.build_encoder(config)
        model = (FeatureBasedClassifier if feature_based(encoder) else SequenceClassifier)(encoder, 1)
    finally:
        keras.config.set_dtype_policy(previous)
    head = model.get_layer("classifier")
    features = np.asarray(keras.Model(model.inputs, head.input)(batch, training=False), np.float32)
    kernel, bias = (np.asarray(w, np.float32) for w in head.weights)
    expected = features @ kernel + bias
    got = np.asarray(model(batch, training=False)["logits"])
    # float32 sums of `hidden` products; bfloat16 would err by about 2**-8 of the scale.
    bound = features.shape[-1] * float(np.finfo(np.float32).eps) * float(np.abs(features).max()
                                                                         * np.abs(kernel).sum(0).max())
    np.testing.assert_allclose(got, expected, rtol=0, atol=bound)


# 5. Text side.

TEXTS = HOSTILE_TEXTS + TEXTS_A + TEXTS_B


@pytest.mark.parametrize("do_lower_case", [True, False])
def test_python_ids_equal_graph_ids(family, vocabulary, do_lower_case):
    text = family.text_side.from_file(vocabulary, do_lower_case)
    if text.do_lower_case != do_lower_case:
        pytest.skip(f"the {family.name} text side ignores do_lower_case: the same text side as the other case")
    tokenizer = text.graph_tokenizer()
    tokenized = tokenizer.tokenize(tf.constant(TEXTS))
    if tokenized.ragged_rank == 2:
        tokenized = tokenized.merge_dims(1, 2)
    assert tokenized.to_list() == [text.encode(t) for t in TEXTS]
    packer = TextPacker(text, SEQ_LENGTH)
    for texts_b in (None, TEXTS[1:] + TEXTS[:1]):
        expected = text.encode_texts(TEXTS, texts_b, SEQ_LENGTH)
        packed = packer.pack(tf.constant(TEXTS), *([] if texts_b is None else [tf.constant(texts_b)]))
        assert set(packed) == set(expected)
        for key, value in expected.items():
            assert packed[key].dtype == tf.int32
            np.testing.assert_array_equal(packed[key].numpy(), value, err_msg=key)


# 6. The fine-tuning tasks through their runners, and the exports.

def write_tsv(path, rows):
    lines = ["sentence\tother\tlabel"] + [f"{a}\t{b}\t{label}" for a, b, label in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def workspace(name, family, config, vocabulary, encoder, tmp_path_factory):
    """The files a user gives the runners: the tiny config written as the family's
    config file, the kit's vocabulary, a random encoder saved as our checkpoint
    (for the command lines that need weights), and the tasks' data."""
    tmp = tmp_path_factory.mktemp(f"{name}_runs")
    config_file = str(tmp / family.config_file)
    config.to_json_file(config_file)
    save_weights(encoder, str(tmp / "checkpoint"))
    houses = tmp / "houses"
    houses.mkdir()
    write_tsv(houses / "train.tsv", TRAIN_HOUSES)
    write_tsv(houses / "dev.tsv", HOUSES)
    write_tsv(houses / "test.tsv", HOUSES)
    swag = tmp / "swag"
    swag.mkdir()
    for target in ("train.csv", "val.csv", "test.csv"):
        shutil.copy(os.path.join(FIXTURES, "swag_train.csv"), swag / target)
    (tmp / "lines.txt").write_text("\n".join(FEATURE_LINES) + "\n", encoding="utf-8")
    model = [f"--bert_config_file={config_file}"] + ([f"--vocab_file={vocabulary}"] if vocabulary else [])
    return {"tmp": tmp, "model": model, "feature_based": family.feature_based is not None,
            "checkpoint": str(tmp / "checkpoint"), "houses": str(houses), "swag": str(swag)}


def command_line(workspace, task):
    """(script, flags) of `task` as a user runs it on the tiny data, writing into
    `<tmp>/<task>` and, for the tasks with a serving SavedModel, exporting to
    `<tmp>/<task>_serving/1`. A feature-based family tags with a CRF, as the
    ELMo paper's NER model (the others without, as BERT's), and sizes every
    task's BiLSTM (`FEATURE_HEAD`)."""
    tmp = workspace["tmp"]
    out = [f"--output_dir={tmp / task}", f"--export_dir={tmp / (task + '_serving') / '1'}",
           "--mixed_precision=none", "--do_train", "--do_eval", "--do_predict",
           "--num_train_epochs=1", "--learning_rate=1e-3"]
    if workspace["feature_based"] and task in SERVED:
        out += [f"--{name}={value}" for name, value in FEATURE_HEAD.items()]
    if task == "classification":
        return "run_classifier.py", out + [
            "--task_name=custom", f"--data_dir={workspace['houses']}", "--text_a_column=sentence",
            "--text_b_column=other", "--similarity",
            "--max_seq_length=24", "--train_batch_size=4", "--eval_batch_size=2",
            "--predict_batch_size=2"]
    if task == "question_answering":
        return "run_squad.py", out + [
            f"--train_file={SQUAD_FILE}", f"--predict_file={SQUAD_FILE}",
            "--version_2_with_negative", "--max_seq_length=48", "--doc_stride=16",
            "--max_query_length=12", "--train_batch_size=4", "--n_best_size=5"]
    if task == "tagging":
        return "run_ner.py", out + [
            f"--data_dir={CONLL_DIR}", "--predict_split=dev", "--max_seq_length=16",
            "--doc_stride=8", "--train_batch_size=4", "--eval_batch_size=4"] + (
                ["--crf"] if workspace["feature_based"] else [])
    if task == "multiple_choice":
        return "run_swag.py", out + [
            f"--data_dir={workspace['swag']}", "--max_seq_length=32", "--train_batch_size=4",
            "--eval_batch_size=4", "--predict_batch_size=4"]
    assert task == "feature_extraction", task
    return "extract_features.py", [
        f"--input_file={tmp / 'lines.txt'}", f"--output_file={tmp / 'features.jsonl'}",
        f"--init_checkpoint={workspace['checkpoint']}", "--layers=-1,-2",
        f"--max_seq_length={HUB_SEQ_LENGTH}", "--batch_size=2"]


@pytest.fixture(scope="module")
def runs(workspace, family):
    """`runs(task)`: the output location of the task's command line, after it
    ran; every declared task's command line, `python -m export.export_hub`
    ("hub", from the saved random encoder) and, for a family with a language
    model, `python -m export.export_generation` ("generation") start at the
    first call, two at a time (one per core of a small machine), each once per
    family."""
    tmp = workspace["tmp"]
    commands = {task: [os.path.join(ROOT, script), *workspace["model"], *argv]
                for task in family.tasks for script, argv in [command_line(workspace, task)]}
    commands["hub"] = ["-m", "export.export_hub", *workspace["model"],
                       f"--init_checkpoint={workspace['checkpoint']}",
                       f"--export_dir={tmp / 'hub'}", f"--seq_length={HUB_SEQ_LENGTH}"]
    if family.language_model:
        commands["generation"] = ["-m", "export.export_generation", *workspace["model"],
                                  f"--init_checkpoint={workspace['checkpoint']}",
                                  f"--export_dir={tmp / 'generation' / '1'}"]
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)
    futures = {}

    def run(task):
        if not futures:
            futures.update({key: pool.submit(
                warm_python.run, [sys.executable, *command], cwd=ROOT, env=ENV,
                capture_output=True, text=True, timeout=600) for key, command in commands.items()})
        proc = futures[task].result()
        assert proc.returncode == 0, f"{' '.join(commands[task][:2])}:\n{proc.stderr[-4000:]}"
        return tmp
    yield run
    pool.shutdown(cancel_futures=True)


def read_results(path):
    with open(path, encoding="utf-8") as f:
        return {k: float(v) for k, v in (line.rstrip("\n").split(" = ") for line in f)}


def check_classification(tmp, text_side, hidden_size):
    """Dev and test are the same five labelled rows: the evaluated accuracy is
    that of the five test predictions."""
    results = read_results(tmp / "classification" / "eval_results.txt")
    (predictions_file,) = [p for p in (tmp / "classification").iterdir() if p.suffix == ".tsv"]
    with open(predictions_file, encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t"))[1:]
    assert len(rows) == len(HOUSES) == len({index for index, _ in rows})  # file order
    predicted = [label for _, label in rows]
    assert results["eval_accuracy"] == pytest.approx(
        np.mean([p == label for p, (_, _, label) in zip(predicted, HOUSES)]), abs=1e-6)
    assert math.isfinite(results["eval_loss"]) and results["eval_loss"] > 0
    # Four "yes" and four "no": the label prior's cross-entropy is ln 2.
    assert results["prior_loss"] == pytest.approx(math.log(2), rel=1e-12)


def check_question_answering(tmp, text_side, hidden_size):
    examples = read_squad_file(SQUAD_FILE, False, True).examples
    predictions, _, null_odds = read_squad_predictions(tmp / "question_answering",
                                                       [e.qas_id for e in examples])
    assert all(math.isfinite(v) for v in null_odds.values())
    results = read_json(tmp / "question_answering" / "eval_results.json")
    unanswerable = sum(e.is_impossible for e in examples)
    assert (results["total"], results["HasAns_total"], results["NoAns_total"]) == (
        len(examples), len(examples) - unanswerable, unanswerable)
    assert all(0.0 <= results[key] <= 100.0 for key in ("exact", "f1"))
    assert all(isinstance(text, str) for text in predictions.values())


def check_tagging(tmp, text_side, hidden_size):
    """predictions.txt tags every dev sentence; eval_f1 is conlleval's F1 over them."""
    results = read_results(tmp / "tagging" / "eval_results.txt")
    with open(os.path.join(CONLL_DIR, "dev.txt"), encoding="utf-8") as f:
        dev = [block for block in f.read().split("\n\n")
               if block.strip() and not block.startswith("-DOCSTART-")]
    predictions = (tmp / "tagging" / "predictions.txt").read_text(encoding="utf-8")
    sentences = [[line.split(" ") for line in block.split("\n")]
                 for block in predictions.strip("\n").split("\n\n")]
    assert len(sentences) == len(dev)
    assert [[row[0] for row in s] for s in sentences] == [
        [line.split()[0] for line in block.strip().split("\n")] for block in dev]
    gold = [[row[1] for row in s] for s in sentences]
    predicted = [[row[2] for row in s] for s in sentences]
    assert results["eval_f1"] == pytest.approx(f1_score(gold, predicted), abs=1e-6)


def check_multiple_choice(tmp, text_side, hidden_size):
    """val and test are the same labelled rows: the evaluated accuracy is that of
    the test predictions."""
    results = read_results(tmp / "multiple_choice" / "eval_results.txt")
    with open(os.path.join(FIXTURES, "swag_train.csv"), encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    with open(tmp / "multiple_choice" / "test_predictions.jsonl", encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    assert [r["id"] for r in records] == [row["fold-ind"] for row in rows]
    assert all(len(r["probabilities"]) == 4 for r in records)
    assert results["eval_accuracy"] == pytest.approx(
        np.mean([r["prediction"] == int(row["label"]) for r, row in zip(records, rows)]), abs=1e-6)


def check_feature_extraction(tmp, text_side, hidden_size):
    """One record per line, a feature per real token of the family's packing, each
    with both layers' finite values of the hidden size."""
    with open(tmp / "features.jsonl", encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    assert [r["linex_index"] for r in records] == list(range(len(FEATURE_LINES)))
    for record, line in zip(records, FEATURE_LINES):
        a, _, b = line.partition(" ||| ")
        mask = text_side.pack(text_side.encode(a), text_side.encode(b) if b else None,
                              HUB_SEQ_LENGTH)["input_mask"]
        assert len(record["features"]) == int(mask.sum())
        for feature in record["features"]:
            assert [layer["index"] for layer in feature["layers"]] == [-1, -2]
            for layer in feature["layers"]:
                assert len(layer["values"]) == hidden_size
                assert all(math.isfinite(v) for v in layer["values"])


CHECKS = {"classification": check_classification, "question_answering": check_question_answering,
          "tagging": check_tagging, "multiple_choice": check_multiple_choice,
          "feature_extraction": check_feature_extraction}


@pytest.mark.parametrize("task", task_registry.names())
def test_each_task_runs_from_its_command_line(family, runs, task, text_side, encoder):
    if task not in family.tasks:
        pytest.skip(f"the {family.name} family does not declare {task}")
    tmp = runs(task)
    CHECKS[task](tmp, text_side, encoder.output["sequence_output"].shape[-1])
    if task in SERVED:
        assert (tmp / f"{task}_serving" / "1" / "saved_model.pb").is_file()
        meta = read_json(tmp / task / "export_meta.json")
        assert meta["encoder_family"] == family.name
        if task == "classification":
            assert meta["both_orders"] == text_side.similarity_in_both_orders
        if task == "tagging":
            assert meta["task_model"]["config"]["crf"] == (family.feature_based is not None)
        if family.feature_based:
            assert {k: meta["task_model"]["config"][k] for k in FEATURE_HEAD} == FEATURE_HEAD
        # The trainability record beside the dev metrics (GPT's: its task's loss alone).
        name = "eval_results.json" if task == "question_answering" else "eval_results.txt"
        path = tmp / task / name
        results = read_json(path) if task == "question_answering" else read_results(path)
        assert results["prior_loss"] > 0 and math.isfinite(results["train_loss"])


_SERVE = """
import json
import tensorflow as tf
import tensorflow_text  # noqa: F401  (the graph tokenizers' ops)

texts = tf.constant(["The red house has two doors.", ""])
others = tf.constant(["A house with doors.", "Nothing at all."])
shapes = {}
loaded = {}

def put(name, outputs):
    shapes[name] = {k: (v.shape.as_list() if not isinstance(v, list)
                        else [len(v)] + v[0].shape.as_list()) for k, v in outputs.items()}

def serve(task):  # each SavedModel loaded once, as a server holds it (a first call sets its graph up)
    if task not in loaded:
        loaded[task] = tf.saved_model.load(ARGS["exports"][task])
    return loaded[task].signatures["serving_default"]

if "classification" in ARGS["exports"]:
    put("classification", serve("classification")(text_a=texts, text_b=others))
    shapes["classification_in_both_orders"] = [
        serve("classification")(text_a=a, text_b=b)["probabilities"].numpy().tolist()
        for a, b in ((texts, others), (others, texts))]
if "question_answering" in ARGS["exports"]:
    put("question_answering", serve("question_answering")(
        question=tf.constant(["How many doors?", ""]), context=texts))
if "tagging" in ARGS["exports"]:
    put("tagging", serve("tagging")(text=texts))
if "multiple_choice" in ARGS["exports"]:
    put("multiple_choice", serve("multiple_choice")(
        context=texts, endings=tf.constant([["It opens.", "It sings.", "", "No."]] * 2)))
if ARGS["generation"]:
    generate = tf.saved_model.load(ARGS["generation"]).signatures["serving_default"]
    prompts = tf.constant(["The red house has two doors.".encode(), b"", ("\U0001F44D" * 10000).encode(),
                           ("word " * 300).encode(), b"\\xff\\xfe doors \\xc3"])

    def generated(top_k, seed):
        outputs = generate(prompt=prompts, max_new_tokens=tf.constant(5), top_k=tf.constant(top_k),
                           seed=tf.constant(seed))
        return {k: [x.decode("utf-8") if isinstance(x, bytes) else x for x in v.numpy().tolist()]
                for k, v in outputs.items()}

    shapes["generation"] = {"greedy": generated(1, 0), "greedy_other_seed": generated(1, 7),
                            "seed_1": generated(20, 1), "seed_1_again": generated(20, 1),
                            "seed_2": generated(20, 2)}
pre = tf.saved_model.load(ARGS["hub"] + "/preprocessor")
enc = tf.saved_model.load(ARGS["hub"] + "/encoder")
packed = pre(texts)
put("hub_preprocessor", packed)
put("hub_encoder", enc(packed, training=False))

# The kit's hostile strings into every export: each output of the batch's size, numbers finite.
hostile = tf.constant([bytes.fromhex(h) for h in ARGS["hostile"]])
n = len(ARGS["hostile"])
answered = {}
if n:
    if "classification" in ARGS["exports"]:
        answered["classification"] = serve("classification")(text_a=hostile,
                                                              text_b=tf.reverse(hostile, [0]))
    if "question_answering" in ARGS["exports"]:
        answered["question_answering"] = serve("question_answering")(question=hostile,
                                                                     context=tf.reverse(hostile, [0]))
    if "tagging" in ARGS["exports"]:
        answered["tagging"] = serve("tagging")(text=hostile)
    if "multiple_choice" in ARGS["exports"]:
        answered["multiple_choice"] = serve("multiple_choice")(
            context=hostile, endings=tf.stack([hostile, tf.reverse(hostile, [0])], 1))
    answered["hub"] = enc(pre(hostile), training=False)
defined = {}
for name, outputs in answered.items():
    values = [v for value in outputs.values() for v in (value if isinstance(value, list) else [value])]
    defined[name] = all(v.shape[0] == n for v in values) and all(
        bool(tf.reduce_all(tf.math.is_finite(v))) for v in values if v.dtype.is_floating)
shapes["hostile"] = defined
print(json.dumps(shapes))
"""


@pytest.fixture(scope="module")
def served(family, kit, workspace, runs):
    """Each serving SavedModel of the family's tasks, the TF Hub pair and the
    generation SavedModel (a family with a language model) loaded in one fresh
    process that sees no project code: the shapes of their outputs on two
    raw-text requests, the classifier's probabilities for the pair in either
    order, what generation answers to raw and hostile prompts, and whether every
    export answers the kit's hostile strings."""
    tmp = workspace["tmp"]
    exports = {task: str(runs(task) / f"{task}_serving" / "1") for task in SERVED
               if task in family.tasks}
    runs("hub")
    generation = str(runs("generation") / "generation" / "1") if family.language_model else None
    hostile = [text.hex() for text in getattr(kit, "hostile_texts", list)()]
    stdout = run_fresh(_SERVE, tmp, exports=exports, hub=str(tmp / "hub"), generation=generation,
                       hostile=hostile)
    return json.loads(stdout.strip().splitlines()[-1])


def test_task_exports_serve_raw_text_in_a_fresh_process(family, served):
    expected = {
        "classification": {"label_ids": [2], "label_names": [2], "probabilities": [2, 2]},
        "question_answering": {key: [2] for key in (
            "answer_text", "answer_start", "answer_end", "score", "probability", "has_answer",
            "null_odds")},
        "multiple_choice": {"probabilities": [2, 4], "label_ids": [2]}}
    for task in SERVED:
        if task not in family.tasks:
            continue
        if task == "classification" and family.text_side.similarity_in_both_orders:
            # The similarity pair is read in both orders: either order is served alike,
            # the same rows encoded at other batch positions and their pooled vectors
            # added the other way round (float32 rounding of probabilities near 0.5).
            ab, ba = served["classification_in_both_orders"]
            np.testing.assert_allclose(ab, ba, rtol=0, atol=1e-6)
        if task == "tagging":
            shapes = served[task]
            assert shapes["num_entities"] == [2]
            width = shapes["entity_types"][1]
            assert {k: v for k, v in shapes.items() if k != "num_entities"} == {
                key: [2, width] for key in ("entity_types", "entity_texts", "entity_starts",
                                            "entity_ends")}
        else:
            assert served[task] == expected[task], task
    assert all(served["hostile"].values()), served["hostile"]


def test_the_hub_pair_loads_in_a_fresh_process(served, encoder, text_side):
    hidden = encoder.output["sequence_output"].shape[-1]
    layers = len(encoder.output["encoder_outputs"])
    assert served["hub_preprocessor"] == {
        key: [2, *shape] for key, shape in text_side.input_shapes(HUB_SEQ_LENGTH).items()}
    assert served["hub_encoder"] == {
        "pooled_output": [2, hidden], "default": [2, hidden],
        "sequence_output": [2, HUB_SEQ_LENGTH, hidden],
        "encoder_outputs": [layers, 2, HUB_SEQ_LENGTH, hidden]}


def test_generation_answers_raw_and_hostile_prompts_in_a_fresh_process(family, config, served):
    """Prompts: a sentence, "", 10,000 emoji and 300 words (both longer than the
    context), invalid UTF-8; five new tokens at most. Greedy ignores the seed;
    a top-k draw follows it; a row stops when it fills the context."""
    if not family.language_model:
        pytest.skip(f"the {family.name} family has no language model to generate with")
    got = served["generation"]
    context = config.max_position_embeddings
    for name, outputs in got.items():
        assert [len(row) for row in outputs["ids"]] == [5] * 5, name
        for ids, count in zip(outputs["ids"], outputs["num_new_tokens"]):
            assert all(i >= 0 for i in ids[:count]) and all(i == -1 for i in ids[count:]), name
        assert outputs["prompt_length"][1:4] == [0, context - 1, context - 1], name
        assert outputs["num_new_tokens"][:4] == [5, 0, 1, 1], name
        assert outputs["text"][1] == "" and outputs["text"][0], name
    assert got["greedy"] == got["greedy_other_seed"]
    assert got["seed_1"] == got["seed_1_again"]
    assert got["seed_1"]["ids"] != got["seed_2"]["ids"]
