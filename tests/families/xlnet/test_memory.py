"""Segment recurrence: a long sequence run as consecutive segments, carrying
`new_mems`, gives what one run over the whole gives (attn_type uni: a position
depends only on earlier ones, so the memory holds exactly the states it needs)."""

import numpy as np
import tensorflow as tf

from families.xlnet.backbone import XLNetBackbone
from tests.families.xlnet.cases import TINY
from tests.families.xlnet.tolerance import float32_bound

SEGMENT, NUM_SEGMENTS = 4, 4


def test_segments_with_memory_equal_one_run_over_the_whole():
    total = SEGMENT * NUM_SEGMENTS
    config = TINY.replace(attn_type="uni", dropout=0.0, dropatt=0.0, mem_len=total - SEGMENT)
    backbone = XLNetBackbone(config)
    ids = np.random.default_rng(3).integers(0, config.n_token, (2, total)).astype(np.int32)
    whole = np.asarray(backbone({"input_ids": ids})["sequence_output"])
    pieces, mems = [], None
    for start in range(0, total, SEGMENT):
        out = backbone({"input_ids": ids[:, start:start + SEGMENT]}, mems=mems)
        pieces.append(np.asarray(out["sequence_output"]))
        mems = out["new_mems"]
    diff = np.abs(np.concatenate(pieces, axis=1) - whole).max()
    assert diff <= float32_bound(config, total, whole)
    # The last segment needs the memory: without it the outputs differ.
    alone = np.asarray(backbone({"input_ids": ids[:, -SEGMENT:]})["sequence_output"])
    assert np.abs(alone - whole[:, -SEGMENT:]).max() > 1e-2


def test_memory_keeps_the_last_mem_len_of_the_reused_positions():
    config = TINY.replace(mem_len=5, reuse_len=3, dropout=0.0, dropatt=0.0)
    backbone = XLNetBackbone(config)
    rng = np.random.default_rng(4)
    first_ids, second_ids = (rng.integers(0, config.n_token, (2, 6)).astype(np.int32) for _ in range(2))
    first = backbone({"input_ids": first_ids})
    second = backbone({"input_ids": second_ids}, mems=first["new_mems"])
    assert [tuple(m.shape) for m in second["new_mems"]] == [(2, 5, config.d_model)] * config.n_layer
    # Layer 0's input is the word embedding: first's reused 3 then second's reused 3, last 5 kept.
    table = np.asarray(backbone.word_embedding.embeddings)
    expected = np.concatenate([table[first_ids[:, 1:3]], table[second_ids[:, :3]]], axis=1)
    np.testing.assert_array_equal(np.asarray(second["new_mems"][0]), expected)


def test_no_gradient_flows_into_the_memory():
    config = TINY.replace(mem_len=6, dropout=0.0, dropatt=0.0)
    backbone = XLNetBackbone(config)
    ids = np.random.default_rng(5).integers(0, config.n_token, (2, 6)).astype(np.int32)
    with tf.GradientTape(persistent=True) as tape:
        out = backbone({"input_ids": ids})
        memory_sum = tf.reduce_sum(out["new_mems"][1])  # layer 1's input: a function of layer 0
        output_sum = tf.reduce_sum(out["sequence_output"])
    layer_0 = backbone.blocks[0].trainable_weights
    assert all(g is None for g in tape.gradient(memory_sum, layer_0))
    assert all(g is not None for g in tape.gradient(output_sum, layer_0))
