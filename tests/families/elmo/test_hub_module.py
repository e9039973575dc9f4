"""The TF Hub ELMo module (`families/elmo/hub_module.py`) as a user runs it:
written from the original layout (`lm_weights.hdf5` + `options.json`) as
`python -m export.export_hub` writes it (the every-family suite runs that
command), loaded in a fresh process that imports
only tensorflow, tensorflow_hub, tf_keras and keras: through
`hub.KerasLayer(..., trainable=True)` in a tf-keras model (the mix trains, the
biLM does not), through `keras.layers.TFSMLayer` in Keras 3, on both
signatures; its numbers against the original `bilm`'s on the same weights,
and defined outputs on hostile strings."""


import numpy as np
import pytest

from checkpoints.companion_files import resolve_encoder_config
from export.hub_encoder import build_hub_model
from families.elmo.hub_module import save_hub_module
from tests.export_harness import run_fresh
from tests.families.elmo import cases
from tests.families.elmo.test_bilm_parity import BOUND
from tests.families.elmo.kit import hostile_texts

# The every-family suite's hostile strings, and one sentence of 20,000 words
# (100,000 characters): the module has no length limit.
HOSTILE = hostile_texts() + [("word " * 20000).encode("utf-8")]

CASE = "chars"

_SCRIPT = """
import json
import numpy as np
import tensorflow as tf
import tensorflow_hub as hub
import tf_keras
import keras

path = ARGS["module"]
sentences = ARGS["sentences"]
longest = max(len(s) for s in sentences)
tokens = tf.constant([s + [""] * (longest - len(s)) for s in sentences])
lengths = tf.constant([len(s) for s in sentences], tf.int32)
strings = tf.constant([" ".join(s) for s in sentences])
out = {}

# tf-keras: the layer on pre-tokenized words and on raw sentences.
layer = hub.KerasLayer(path, trainable=True)
by_tokens = layer({"tokens": tokens, "sequence_len": lengths})
by_strings = layer(strings)
for key, value in by_tokens.items():
    out[f"tokens_{key}"] = value.numpy()
    out[f"strings_{key}"] = by_strings[key].numpy()
out["trainable"] = [w.name for w in layer.trainable_weights]

# The mix set as the original's weight_layers was run (W, gamma), then `elmo` again.
w, gamma = sorted(layer.trainable_weights, key=lambda v: v.shape.num_elements(), reverse=True)
w.assign(ARGS["mix"]["w"])
gamma.assign([ARGS["mix"]["gamma"]])
out["mixed_elmo"] = layer({"tokens": tokens, "sequence_len": lengths})["elmo"].numpy()
w.assign(tf.zeros_like(w))
gamma.assign([1.0])

# Fine-tuning in a tf-keras model: only the mix moves.
text = tf_keras.Input(shape=(), dtype=tf.string)
score = tf_keras.layers.Dense(1)(hub.KerasLayer(path, trainable=True, output_key="default")(text))
model = tf_keras.Model(text, score)
model.compile(tf_keras.optimizers.Adam(0.1), "mse")
frozen = [v.numpy() for v in model.non_trainable_weights]
mix_before = [v.numpy() for v in model.layers[1].trainable_weights]
model.fit(tf.constant(["the cat sat .", "on the mat ,", "sat", "cat cat"]),
          np.array([1.0, -1.0, 2.0, 0.0]), epochs=3, verbose=0)
out["mix_moved"] = [bool(np.any(b != v.numpy())) for b, v in zip(mix_before, model.layers[1].trainable_weights)]
out["frozen_kept"] = all(np.array_equal(b, v.numpy()) for b, v in zip(frozen, model.non_trainable_weights))
out["frozen_count"] = len(frozen)

# Keras 3: both endpoints.
out["tfsm_default"] = keras.layers.TFSMLayer(path, call_endpoint="default")(strings)["elmo"].numpy()
out["tfsm_tokens"] = keras.layers.TFSMLayer(path, call_endpoint="tokens")(
    {"tokens": tokens, "sequence_len": lengths})["lstm_outputs2"].numpy()

# Hostile strings, raw and as single tokens.
hostile = tf.constant([bytes.fromhex(h) for h in ARGS["hostile"]])
module = tf.saved_model.load(path)
for name, outputs in (("default", module.signatures["default"](strings=hostile)),
                      ("tokens", module.signatures["tokens"](tokens=hostile[:, None],
                                                             sequence_len=tf.ones_like(hostile, tf.int32)))):
    out[f"hostile_{name}_shapes"] = {k: v.shape.as_list() for k, v in outputs.items()}
    out[f"hostile_{name}_finite"] = all(bool(tf.reduce_all(tf.math.is_finite(v))) for v in outputs.values())
    out[f"hostile_{name}_default"] = outputs["default"].numpy()

# Batches without a word: blank strings, no strings, tokens with no columns.
blank, none = tf.constant(["", "  "]), tf.constant([], tf.string)
empty = {"default blank": module.signatures["default"](strings=blank),
         "default none": module.signatures["default"](strings=none),
         "call blank": module(blank), "call none": module(none),
         "tokens none": module.signatures["tokens"](tokens=tf.zeros([0, 0], tf.string),
                                                    sequence_len=tf.zeros([0], tf.int32)),
         "tokens no columns": module.signatures["tokens"](tokens=tf.zeros([2, 0], tf.string),
                                                          sequence_len=tf.constant([0, 3])),
         "call tokens none": module({"tokens": tf.zeros([0, 0], tf.string),
                                     "sequence_len": tf.zeros([0], tf.int32)})}
out["empty"] = {name: {k: [v.shape.as_list(), bool(tf.reduce_all(v == 0))] for k, v in outputs.items()}
                for name, outputs in empty.items()}
np.savez("hub_outputs.npz", **{k: v for k, v in out.items() if isinstance(v, np.ndarray)})
print(json.dumps({k: v for k, v in out.items() if not isinstance(v, np.ndarray)}))
"""


@pytest.fixture(scope="module")
def served(elmo_cases, tmp_path_factory):
    """What the fresh process saw of the module exported from the case's
    original-layout weights: (JSON report, arrays)."""
    tmp = tmp_path_factory.mktemp("elmo_hub")
    encoder, _ = build_hub_model(resolve_encoder_config(init_checkpoint=elmo_cases[CASE]), elmo_cases[CASE])
    save_hub_module(str(tmp / "elmo"), encoder)
    report = run_fresh(_SCRIPT, tmp, module=str(tmp / "elmo"), sentences=cases.BATCHES[0],
                       mix=cases.mix_weights(cases.CONFIGS[CASE]), hostile=[h.hex() for h in HOSTILE])
    import json
    return json.loads(report.strip().splitlines()[-1]), dict(np.load(tmp / "hub_outputs.npz"))


def _masked(values, mask):
    return values * mask[..., None]


def test_the_module_gives_the_originals_layers_and_mix(served, bilm_outputs):
    """The first batch of the original (a zero state, as every call of the
    module) on the same weights: the token representation without BOS/EOS, each
    LSTM layer, and the mix with the original's `weight_layers` values."""
    _, arrays = served
    reference = bilm_outputs[CASE]
    mask = reference["mask_0"]
    projection = cases.CONFIGS[CASE].lstm.projection_dim
    expected = {"word_emb": reference["token_embeddings_0"][:, 1:-1],
                "lstm_outputs1": reference["lm_embeddings_0"][:, 1],
                "lstm_outputs2": reference["lm_embeddings_0"][:, 2]}
    assert arrays["tokens_word_emb"].shape[-1] == projection
    for source in ("tokens", "strings"):
        for key, value in expected.items():
            got = arrays[f"{source}_{key}"]
            assert got.shape == value.shape, key
            assert np.abs(_masked(got - value, mask)).max() <= BOUND, (source, key)
            assert not np.any(_masked(got, ~mask))  # padding is zero
    assert np.abs(_masked(arrays["mixed_elmo"] - reference["mix_0"], mask)).max() <= BOUND
    # Untouched, the mix is an even one with gamma 1; `default` is its mean over the words.
    even = sum(reference["lm_embeddings_0"][:, j] for j in range(3)) / 3
    assert np.abs(_masked(arrays["tokens_elmo"] - even, mask)).max() <= BOUND
    mean = (arrays["tokens_elmo"] * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
    np.testing.assert_allclose(arrays["tokens_default"], mean, rtol=0, atol=1e-6)


def test_hub_keras_layer_fine_tunes_the_mix_only_and_tfsm_layer_serves(served):
    report, arrays = served
    assert len(report["trainable"]) == 2
    assert report["mix_moved"] == [True, True] and report["frozen_kept"] and report["frozen_count"] > 10
    np.testing.assert_allclose(arrays["tfsm_default"], arrays["strings_elmo"], rtol=0, atol=1e-6)
    np.testing.assert_allclose(arrays["tfsm_tokens"], arrays["tokens_lstm_outputs2"], rtol=0, atol=1e-6)


def test_hostile_strings_give_defined_outputs(served):
    report, arrays = served
    hidden = 2 * cases.CONFIGS[CASE].lstm.projection_dim
    for name in ("default", "tokens"):
        shapes = report[f"hostile_{name}_shapes"]
        assert report[f"hostile_{name}_finite"], name
        assert shapes["default"] == [len(HOSTILE), hidden]
        assert shapes["elmo"][0] == len(HOSTILE) and shapes["elmo"][2] == hidden
    assert shapes["elmo"][1] == 1  # each string one token
    # The empty string has no word: its sentence vector is zero.
    assert not np.any(arrays["hostile_default_default"][[h == b"" for h in HOSTILE]])


def test_batches_without_words_give_zeros_of_their_shape(served):
    """Blank strings, no strings, a [0, 0] or [2, 0] `tokens`: through both
    signatures and `__call__`, every output of the batch's shape, zero (the
    sentence vector of a sentence without words is zero, as the docs say)."""
    report, _ = served
    projection = cases.CONFIGS[CASE].lstm.projection_dim
    batches = {"default blank": 2, "default none": 0, "call blank": 2, "call none": 0,
               "tokens none": 0, "tokens no columns": 2, "call tokens none": 0}
    assert set(report["empty"]) == set(batches)
    for name, batch in batches.items():
        expected = {"word_emb": [batch, 0, projection], "lstm_outputs1": [batch, 0, 2 * projection],
                    "lstm_outputs2": [batch, 0, 2 * projection], "elmo": [batch, 0, 2 * projection],
                    "default": [batch, 2 * projection]}
        assert report["empty"][name] == {k: [shape, True] for k, shape in expected.items()}, name
