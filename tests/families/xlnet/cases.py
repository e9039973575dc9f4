"""Parity cases shared by the Hugging Face comparison and its JAX-backend run: a
config and a list of steps, each step's inputs fed with the previous step's
`new_mems`. Only numpy, keras and our modeling (no torch), so a JAX subprocess can
import it."""

import numpy as np
from keras import ops

from families.xlnet.backbone import XLNetBackbone
from families.xlnet.config import XLNetConfig
from families.xlnet.lm_head import XLNetLMHead

TINY = XLNetConfig.from_preset("xlnet_tiny").replace(dropout=0.0, dropatt=0.0)
BATCH, QLEN, NUM_PREDICT = 2, 10, 4
CLS_SEGMENT = 2


def fine_tuning_inputs(rng, batch=BATCH, qlen=QLEN):
    """`A <sep> B <sep> <cls>` shaped rows, padded on the left, input_mask 1 = padding."""
    input_mask = np.zeros((batch, qlen), np.float32)
    segment_ids = np.zeros((batch, qlen), np.int32)
    for b in range(batch):
        pad = 3 * b  # row 0 unpadded, row 1 with 3 padding positions
        input_mask[b, :pad] = 1.0
        split = pad + (qlen - pad) // 2
        segment_ids[b, split:] = 1
        segment_ids[b, -1] = CLS_SEGMENT
    return {"input_ids": rng.integers(0, TINY.n_token, (batch, qlen)).astype(np.int32),
            "segment_ids": segment_ids, "input_mask": input_mask}


def permutation_inputs(rng, batch=BATCH, qlen=QLEN, num_predict=NUM_PREDICT):
    """A random factorisation order per row whose last `num_predict` (non-padding)
    positions are the targets: a target j is hidden from i unless j comes earlier
    in the order; every other token is visible to all (the original's `_local_perm`)."""
    inputs = fine_tuning_inputs(rng, batch, qlen)
    perm_mask = np.zeros((batch, qlen, qlen), np.float32)
    target_mapping = np.zeros((batch, num_predict, qlen), np.float32)
    orders = np.zeros((batch, qlen), np.int64)
    for b in range(batch):
        order = rng.permutation(qlen)  # order[j]: step at which position j is factorised
        real = np.flatnonzero(inputs["input_mask"][b] == 0)
        targets = real[np.argsort(order[real])[-num_predict:]]
        is_target = np.isin(np.arange(qlen), targets)
        perm_mask[b] = is_target[None, :] & (order[None, :] >= order[:, None])
        target_mapping[b, np.arange(num_predict), np.sort(targets)] = 1.0
        orders[b] = order
    return {**inputs, "perm_mask": perm_mask, "target_mapping": target_mapping}, orders


def make_cases():
    """name -> (config, steps). Every case has padding and the `<cls>` segment."""
    rng = np.random.default_rng(19)
    two_stream = permutation_inputs(rng)[0]
    second_segment = permutation_inputs(rng)[0]
    uni_steps = [fine_tuning_inputs(rng, batch=1), fine_tuning_inputs(rng, batch=1)]
    return {
        "content_stream": (TINY, [fine_tuning_inputs(rng)]),
        "two_stream": (TINY, [two_stream]),
        "bi_data_clamped": (TINY.replace(bi_data=True, clamp_len=6), [two_stream]),
        "tied_biases_relu": (TINY.replace(untie_r=False, ff_activation="relu"), [two_stream]),
        "memory": (TINY.replace(mem_len=7, reuse_len=6), [two_stream, second_segment]),
        "memory_bi_data": (TINY.replace(mem_len=12, bi_data=True), [two_stream, second_segment]),
        # Hugging Face's attn_type="uni" fails at batch > 1 with a mask: batch 1.
        "uni_same_length_memory": (TINY.replace(attn_type="uni", same_length=True, mem_len=8),
                                   uni_steps),
    }


def build_ours(config):
    backbone = XLNetBackbone(config)
    head = XLNetLMHead(backbone.word_embedding)
    backbone.build()
    head.build((None, None, config.d_model))
    return backbone, head


def run_ours(backbone, head, steps):
    """Per step: outputs as numpy, query-stream LM logits, and `new_mems_{i}`."""
    results, mems = [], None
    for inputs in steps:
        outputs = backbone({k: ops.convert_to_tensor(v) for k, v in inputs.items()}, mems=mems)
        result = {"sequence_output": ops.convert_to_numpy(outputs["sequence_output"])}
        if "query_output" in outputs:
            result["query_output"] = ops.convert_to_numpy(outputs["query_output"])
            result["logits"] = ops.convert_to_numpy(head(outputs["query_output"]))
        mems = outputs.get("new_mems")
        for i, mem in enumerate(mems or []):
            result[f"new_mems_{i}"] = ops.convert_to_numpy(mem)
        results.append(result)
    return results
