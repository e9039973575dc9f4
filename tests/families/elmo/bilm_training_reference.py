"""Runs the original biLM's training graph (`bilm` 0.1.post5's
`training.LanguageModel`, allenai/bilm-tf) on cases written by
`test_pretraining_loss.py`, in its own process: it needs TensorFlow 1
behaviour (`tf.compat.v1` standing in for `tensorflow`, legacy Keras) that must
not leak into the test process.

Usage: python bilm_training_reference.py DIR [DIR ...]
Each DIR holds options.json (training options: batch_size, unroll_steps,
n_characters 261), weights.npz (each variable under its `lm_weights.hdf5` name,
as the original's `dump_weights` names it, and `softmax/W`, `softmax/b`) and
feeds.npz: per batch k the original's feeds (`token_ids_k` or
`tokens_characters_k`, `next_token_id_k`, their `_reverse_k`), the first
batch's LSTM state (`state_i`, the states flattened as TensorFlow nests them)
and, per direction d, a sampled softmax's `candidates_d_k`,
`true_expected_d_k` and `sampled_expected_d_k`. The model is built with
`is_training=False` (no dropout, the full softmax); batches run in order, each
from the state the one before ended with, as `training.train` feeds them.
Writes reference.npz: `total_loss_k`, `losses_k` (forward, backward),
`state_k_i` (the final states) and `sampled_losses_d_k` (per token, from
`tf.nn.sampled_softmax_loss` on the model's LSTM outputs with those samples).
"""

import json
import os
import re
import sys

import numpy as np

from original_tf1 import tf1  # the original's TensorFlow 1 set-up, before bilm

from bilm.training import LanguageModel  # noqa: E402


def dump_name(tf_name):
    """The name `bilm.training.dump_weights` gives a training variable (its rules)."""
    name = re.sub(":0$", "", tf_name)
    name = re.sub("^lm/", "", name)
    for old, new in (("/rnn/", "/RNN/"), ("/multi_rnn_cell/", "/MultiRNNCell/"), ("/cell_", "/Cell"),
                     ("/lstm_cell/", "/LSTMCell/")):
        name = name.replace(old, new)
    if "/RNN/" in name:
        name = name.replace("projection/kernel", "W_P_0") if "projection" in name else \
            re.sub("/kernel$", "/W_0", re.sub("/bias$", "/B", name))
    return name


def run(directory):
    path = lambda name: os.path.join(directory, name)  # noqa: E731
    with open(path("options.json")) as f:
        options = json.load(f)
    weights, feeds = np.load(path("weights.npz")), np.load(path("feeds.npz"))
    tf1.reset_default_graph()
    with tf1.variable_scope("lm"):
        model = LanguageModel(options, False)
    inputs = [model.tokens_characters, model.tokens_characters_reverse] if model.char_inputs else \
        [model.token_ids, model.token_ids_reverse]
    input_name = "tokens_characters" if model.char_inputs else "token_ids"
    targets = [model.next_token_id, model.next_token_id_reverse]
    initial, final = tf1.nest.flatten(model.init_lstm_state), tf1.nest.flatten(model.final_lstm_state)
    n_sampled = options["n_negative_samples_batch"]
    sampled_losses, sampled_feeds = [], []
    for d, outputs in enumerate(tf1.get_collection("lstm_output_embeddings")):
        flat = tf1.reshape(tf1.stack(outputs, axis=1), [-1, options["lstm"]["projection_dim"]])
        values = (tf1.placeholder(tf1.int64, [n_sampled]), tf1.placeholder(tf1.float32, [None, 1]),
                  tf1.placeholder(tf1.float32, [n_sampled]))
        sampled_feeds.append(values)
        sampled_losses.append(tf1.nn.sampled_softmax_loss(
            model.softmax_W, model.softmax_b, tf1.reshape(targets[d], [-1, 1]), flat, n_sampled,
            options["n_tokens_vocab"], sampled_values=values, remove_accidental_hits=True))
    out = {}
    with tf1.Session() as session:
        session.run(tf1.global_variables_initializer())
        for variable in tf1.global_variables():
            session.run(variable.assign(weights[dump_name(variable.name)]))
        state = [feeds[f"state_{i}"] for i in range(len(initial))]
        k = 0
        while f"next_token_id_{k}" in feeds:
            feed = dict(zip(initial, state))
            for d, suffix in enumerate(("", "_reverse")):
                feed[inputs[d]] = feeds[f"{input_name}{suffix}_{k}"]
                feed[targets[d]] = feeds[f"next_token_id{suffix}_{k}"]
                for placeholder, name in zip(sampled_feeds[d], ("candidates", "true_expected", "sampled_expected")):
                    value = feeds[f"{name}_{d}_{k}"]
                    feed[placeholder] = value.reshape(-1, 1) if name == "true_expected" else value
            total, losses, sampled, state = session.run(
                [model.total_loss, model.individual_losses, sampled_losses, final], feed_dict=feed)
            out.update({f"total_loss_{k}": total, f"losses_{k}": np.array(losses)})
            out.update({f"state_{k}_{i}": s for i, s in enumerate(state)})
            out.update({f"sampled_losses_{d}_{k}": s for d, s in enumerate(sampled)})
            k += 1
    np.savez(path("reference.npz"), **out)


if __name__ == "__main__":
    for case_dir in sys.argv[1:]:
        run(case_dir)
