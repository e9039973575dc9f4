"""Runs google-research's own TF1 BERT (bert-tensorflow) on a TF1 checkpoint.

Usage: python original_bert_forward.py CKPT_PREFIX BERT_CONFIG INPUTS_NPZ OUTPUT_NPZ

Executed in a subprocess by the tests: the original code needs graph mode and
defines global absl flags; `tf.layers` needs TF_USE_LEGACY_KERAS=1. `tensorflow.contrib` no longer exists, so its one
use (`contrib.layers.layer_norm`, epsilon 1e-12, variables beta/gamma) is
provided here with the same variable names and arithmetic.
"""

import sys
import types

import numpy as np
import tensorflow.compat.v1 as tf


def _install_contrib_layer_norm():
    def layer_norm(inputs, begin_norm_axis=-1, begin_params_axis=-1, scope=None):
        with tf.variable_scope(scope, "LayerNorm"):
            shape = inputs.shape[-1:]
            beta = tf.get_variable("beta", shape, initializer=tf.zeros_initializer())
            gamma = tf.get_variable("gamma", shape, initializer=tf.ones_initializer())
            mean, variance = tf.nn.moments(inputs, [begin_norm_axis], keep_dims=True)
            return tf.nn.batch_normalization(inputs, mean, variance, beta, gamma, 1e-12)

    contrib = types.ModuleType("tensorflow.contrib")
    contrib.layers = types.SimpleNamespace(layer_norm=layer_norm)
    sys.modules["tensorflow.contrib"] = contrib
    sys.modules["tensorflow.contrib.layers"] = contrib.layers


def main(prefix, config_file, inputs_file, output_file):
    _install_contrib_layer_norm()
    tf.disable_eager_execution()
    from bert import modeling, run_pretraining
    inputs = np.load(inputs_file)
    config = modeling.BertConfig.from_json_file(config_file)
    model = modeling.BertModel(
        config=config, is_training=False, input_ids=tf.constant(inputs["input_word_ids"]),
        input_mask=tf.constant(inputs["input_mask"]),
        token_type_ids=tf.constant(inputs["input_type_ids"]), use_one_hot_embeddings=False)
    positions = tf.constant(inputs["masked_lm_positions"])
    zeros = tf.zeros_like(positions)
    _, _, mlm_log_probs = run_pretraining.get_masked_lm_output(
        config, model.get_sequence_output(), model.get_embedding_table(), positions, zeros,
        tf.ones_like(positions, tf.float32))
    _, _, nsp_log_probs = run_pretraining.get_next_sentence_output(
        config, model.get_pooled_output(), tf.zeros([positions.shape[0]], tf.int32))
    tf.train.init_from_checkpoint(prefix, {"bert/": "bert/", "cls/": "cls/"})
    with tf.Session() as session:
        session.run(tf.global_variables_initializer())
        sequence, pooled, mlm, nsp = session.run([
            model.get_sequence_output(), model.get_pooled_output(), mlm_log_probs, nsp_log_probs])
    np.savez(output_file, sequence_output=sequence, pooled_output=pooled,
             mlm_log_probs=mlm, nsp_log_probs=nsp)


if __name__ == "__main__":
    main(*sys.argv[1:5])
