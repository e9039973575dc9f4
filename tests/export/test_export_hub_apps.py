"""The TF Hub pair inside the apps users write: a tf-keras model with
`hub.KerasLayer` (as for the published BERT modules) and Keras 3 models with
`keras.layers.TFSMLayer` and with the `TrainableHubEncoder` layer of docs/keras3.md
(AdamW, Adam), each in a fresh process that imports only tensorflow,
tensorflow_text and its loader. Fitting must train the encoder."""

import json
import os
import textwrap

import numpy as np
import pytest

from data.text.segments import pack_ids
from data.text.tokenization import FullTokenizer
from tests.conftest import ROOT
from tests.export_harness import FIT_REPORT, export_tiny_hub, run_fresh, sentences

PAIR_SEQ_LENGTH = 32

_TF_KERAS_APP = FIT_REPORT + """
import tensorflow as tf
import tensorflow_hub as hub
import tensorflow_text  # noqa: F401
import tf_keras

tf_keras.utils.set_random_seed(0)
report = {}

# One segment: the preprocessor on a string input, as for the published modules.
sentence = tf_keras.layers.Input(shape=(), dtype=tf.string)
encoder = hub.KerasLayer(ARGS["encoder"], trainable=True)
pooled = encoder(hub.KerasLayer(ARGS["preprocessor"])(sentence))["pooled_output"]
model = tf_keras.Model(sentence, tf_keras.layers.Dense(2)(pooled))
model.compile(tf_keras.optimizers.Adam(1e-3),
              tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
report["single"] = fit_report(model, encoder.trainable_weights, texts)

# Sentence pairs: tokenize each segment, then bert_pack_inputs.
preprocessor = hub.load(ARGS["preprocessor"])
tokenize = hub.KerasLayer(preprocessor.tokenize)
pack = hub.KerasLayer(preprocessor.bert_pack_inputs,
                      arguments=dict(seq_length=ARGS["pair_seq_length"]))
first = tf_keras.layers.Input(shape=(), dtype=tf.string)
second = tf_keras.layers.Input(shape=(), dtype=tf.string)
encoder_inputs = pack([tokenize(first), tokenize(second)])
packed = tf_keras.Model([first, second], encoder_inputs).predict([texts, np.roll(texts, 1)],
                                                                 verbose=0)
report["packed"] = {k: np.asarray(v).tolist() for k, v in packed.items()}
print(json.dumps(report))
"""

# The layer docs/keras3.md gives Keras 3 users (kept verbatim there: see the last test).
TRAINABLE_HUB_ENCODER = '''
class TrainableHubEncoder(keras.layers.Layer):
    """Our TF Hub encoder as a Keras 3 layer that any optimizer fine-tunes."""

    def __init__(self, path, **kwargs):
        super().__init__(**kwargs)
        self.encoder = tf.saved_model.load(path)
        # The SavedModel's own variables, named without TensorFlow's ":0"
        # (Adam and AdamW cannot name their slot variables after that).
        self.encoder_weights = [
            keras.Variable(v, trainable=v.trainable, name=v.name.split(":")[0].replace("/", "_"))
            for v in self.encoder.variables]

    def call(self, inputs, training=False):
        return self.encoder(inputs, training=training)
'''

_KERAS3_APP = FIT_REPORT + """
import keras
import tensorflow as tf
import tensorflow_text  # noqa: F401
""" + TRAINABLE_HUB_ENCODER + """

def fine_tune(make_encoder, optimizer):
    keras.utils.set_random_seed(0)
    sentence = keras.Input(shape=(), dtype="string")
    encoder = make_encoder()
    pooled = encoder(keras.layers.TFSMLayer(ARGS["preprocessor"])(sentence))["pooled_output"]
    model = keras.Model(sentence, keras.layers.Dense(2)(pooled))
    model.compile(optimizer, keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    # The variables the SavedModel's functions compute with: these must move.
    saved = getattr(encoder, "encoder", None)
    weights = list(saved.trainable_variables) if saved else encoder.trainable_weights
    return fit_report(model, weights, tf.constant(texts))

# Plain TFSMLayer trains with SGD (its weight names keep ":0": no Adam).
tfsm = lambda: keras.layers.TFSMLayer(ARGS["encoder"], call_endpoint="serve",
                                      call_training_endpoint="call_training")
layer = lambda: TrainableHubEncoder(ARGS["encoder"])
print(json.dumps({"tfsm_sgd": fine_tune(tfsm, keras.optimizers.SGD(0.05)),
                  "adamw": fine_tune(layer, keras.optimizers.AdamW(1e-3)),
                  "adam": fine_tune(layer, keras.optimizers.Adam(1e-3))}))
"""


@pytest.fixture(scope="module")
def hub_export(tmp_path_factory, uncased_vocab_file):
    return export_tiny_hub(str(tmp_path_factory.mktemp("hub_apps")), uncased_vocab_file)


def _app_args(hub_export):
    texts = sentences()[:8]
    return dict(preprocessor=hub_export["preprocessor"], encoder=hub_export["encoder"],
                texts=texts, labels=[i % 2 for i in range(len(texts))],
                pair_seq_length=PAIR_SEQ_LENGTH)


def _assert_fine_tuned(fit, num_encoder_variables, num_layers):
    assert fit["trainable"] == num_encoder_variables
    assert fit["losses"][1] < fit["losses"][0], fit["losses"]
    # Every variable moves but the attention key biases, whose gradient is zero
    # in exact arithmetic (softmax ignores a constant added to all logits).
    assert fit["changed"] >= num_encoder_variables - num_layers, fit


def test_tf_keras_app_with_hub_keras_layer(hub_export):
    args = _app_args(hub_export)
    report = json.loads(run_fresh(_TF_KERAS_APP, hub_export["tmp"], **args).strip().splitlines()[-1])
    encoder = hub_export["pretrainer"].encoder
    _assert_fine_tuned(report["single"], len(encoder.trainable_variables),
                       encoder.config.num_hidden_layers)
    tokenizer = FullTokenizer(hub_export["vocab_file"], do_lower_case=True)
    vocab = tokenizer.vocab
    texts = args["texts"]
    for i, (a, b) in enumerate(zip(texts, np.roll(np.array(texts, dtype=object), 1))):
        expected = pack_ids(tokenizer.encode(a), tokenizer.encode(b), PAIR_SEQ_LENGTH,
                            vocab.cls_id, vocab.sep_id, vocab.pad_id)
        for key, value in zip(("input_word_ids", "input_mask", "input_type_ids"), expected):
            assert report["packed"][key][i] == value.tolist(), (key, i)


def test_keras3_apps_fine_tune_with_sgd_adamw_and_adam(hub_export):
    report = json.loads(run_fresh(_KERAS3_APP, hub_export["tmp"], **_app_args(hub_export))
                        .strip().splitlines()[-1])
    encoder = hub_export["pretrainer"].encoder
    for name in ("tfsm_sgd", "adamw", "adam"):
        _assert_fine_tuned(report[name], len(encoder.trainable_variables),
                           encoder.config.num_hidden_layers)


def test_docs_give_the_tested_keras3_layer():
    with open(os.path.join(ROOT, "docs", "keras3.md"), encoding="utf-8") as f:
        page = f.read()
    assert textwrap.indent(TRAINABLE_HUB_ENCODER.strip("\n"), "    ") in page
