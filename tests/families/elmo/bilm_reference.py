"""Runs the original biLM (`bilm` 0.1.post5, allenai/bilm-tf packaged) on
cases written by `cases.write_case`, in its own process: it needs TensorFlow 1
behaviour (`tf.compat.v1` standing in for `tensorflow`, legacy Keras) that must
not leak into the test process.

Usage: python bilm_reference.py DIR [DIR ...]
Each DIR holds options.json, lm_weights.hdf5, vocab.txt, sentences.json (a
list of batches, each a list of token lists) and mix.json (W and gamma); writes reference.npz with, per
batch k, `char_ids_k` (the original `Batcher`'s ids; token ids from its
`TokenBatcher` for a model without char_cnn), `lm_embeddings_k`
[batch, 3, seq, 2 * projection], `mask_k` and `token_embeddings_k` (with
BOS/EOS), all run one after another in one session, as the original keeps its
LSTM state from batch to batch; and `mix_k` / `mix_ln_k`, its `weight_layers`
without and with layer norm, W and gamma set from mix.json. A character
model's DIR also gets the original's token inputs (`run_token_inputs`).
"""

import json
import os
import sys

import numpy as np

from original_tf1 import tf1  # the original's TensorFlow 1 set-up, before bilm

from bilm import (Batcher, BidirectionalLanguageModel, TokenBatcher, dump_token_embeddings,  # noqa: E402
                  weight_layers)

TOKEN_EMBEDDING_FILE = "token_embedding_weights.hdf5"


def run_token_inputs(directory, batches):
    """The original's token inputs from a character model: its
    `dump_token_embeddings` writes DIR/token_embedding_weights.hdf5 (the char
    CNN's vector of each vocab.txt word), then its biLM with
    `use_character_inputs=False` reads that table and lm_weights.hdf5's LSTMs;
    {`token_inputs_ids_k`, `token_inputs_lm_embeddings_k`,
    `token_inputs_mask_k`} of the batches, run in order in one session."""
    path = lambda name: os.path.join(directory, name)  # noqa: E731
    tf1.reset_default_graph()
    dump_token_embeddings(path("vocab.txt"), path("options.json"), path("lm_weights.hdf5"),
                          path(TOKEN_EMBEDDING_FILE))
    tf1.reset_default_graph()
    batcher = TokenBatcher(path("vocab.txt"))
    ids = tf1.placeholder("int32", shape=(None, None))
    ops = BidirectionalLanguageModel(path("options.json"), path("lm_weights.hdf5"), use_character_inputs=False,
                                     embedding_weight_file=path(TOKEN_EMBEDDING_FILE))(ids)
    out = {}
    with tf1.Session() as session:
        session.run(tf1.global_variables_initializer())
        for k, sentences in enumerate(batches):
            batch_ids = batcher.batch_sentences(sentences)
            lm, mask = session.run([ops["lm_embeddings"], ops["mask"]], feed_dict={ids: batch_ids})
            out.update({f"token_inputs_ids_{k}": batch_ids, f"token_inputs_lm_embeddings_{k}": lm,
                        f"token_inputs_mask_{k}": mask})
    return out


def run(directory):
    path = lambda name: os.path.join(directory, name)  # noqa: E731
    with open(path("options.json")) as f:
        options = json.load(f)
    with open(path("sentences.json")) as f:
        batches = json.load(f)
    with open(path("mix.json")) as f:
        mix_weights = json.load(f)
    characters = "char_cnn" in options
    tf1.reset_default_graph()
    if characters:
        batcher = Batcher(path("vocab.txt"), options["char_cnn"]["max_characters_per_token"])
        ids = tf1.placeholder("int32", shape=(None, None, options["char_cnn"]["max_characters_per_token"]))
        model = BidirectionalLanguageModel(path("options.json"), path("lm_weights.hdf5"))
    else:
        batcher = TokenBatcher(path("vocab.txt"))
        ids = tf1.placeholder("int32", shape=(None, None))
        model = BidirectionalLanguageModel(path("options.json"), path("lm_weights.hdf5"),
                                           use_character_inputs=False,
                                           embedding_weight_file=path("lm_weights.hdf5"))
    ops = model(ids)
    mixes = [weight_layers(name, ops, l2_coef=0.001, do_layer_norm=norm)["weighted_op"]
             for name, norm in (("plain", False), ("norm", True))]
    out = {}
    with tf1.Session() as session:
        session.run(tf1.global_variables_initializer())
        for name in ("plain", "norm"):
            w, gamma = (v for v in tf1.global_variables() if v.name.startswith(f"{name}_ELMo_"))
            session.run([w.assign(mix_weights["w"]), gamma.assign([mix_weights["gamma"]])])
        for k, sentences in enumerate(batches):
            batch_ids = batcher.batch_sentences(sentences)
            # One run per batch: every run of these ops moves the LSTM state on.
            lm, mask, tokens, mix, mix_ln = session.run(
                [ops["lm_embeddings"], ops["mask"], ops["token_embeddings"], *mixes], feed_dict={ids: batch_ids})
            out.update({f"char_ids_{k}": batch_ids, f"lm_embeddings_{k}": lm, f"mask_{k}": mask,
                        f"token_embeddings_{k}": tokens, f"mix_{k}": mix, f"mix_ln_{k}": mix_ln})
    if characters:
        out.update(run_token_inputs(directory, batches))
    np.savez(path("reference.npz"), **out)


if __name__ == "__main__":
    for case_dir in sys.argv[1:]:
        run(case_dir)
