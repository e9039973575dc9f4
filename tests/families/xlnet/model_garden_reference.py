"""The reference: the TF Model Garden's `official.nlp.modeling.networks.XLNetBase`
(tf-models-official) with random weights, built from one of our configs, and run
with the original's mask conventions translated to its own."""

import numpy as np
import tf_keras
from official.nlp.modeling import networks

from tests.families.xlnet.cases import permutation_inputs

WEIGHT_STD = 0.2  # as the Hugging Face comparison: attention far from uniform at d_head 8


def model_garden_network(config, two_stream, seed=0):
    network = networks.XLNetBase(
        vocab_size=config.n_token, num_layers=config.n_layer, hidden_size=config.d_model,
        num_attention_heads=config.n_head, head_size=config.d_head, inner_size=config.d_inner,
        dropout_rate=0.0, attention_dropout_rate=0.0, attention_type=config.attn_type,
        bi_data=config.bi_data, initializer=tf_keras.initializers.RandomNormal(stddev=WEIGHT_STD),
        two_stream=two_stream, tie_attention_biases=not config.untie_r, memory_length=config.mem_len,
        clamp_length=config.clamp_len, reuse_length=config.reuse_len,
        inner_activation=config.ff_activation, use_cls_mask=False)
    inputs, _ = permutation_inputs(np.random.default_rng(seed))
    run_model_garden(network, inputs, two_stream)  # creates seg_embed and mask_emb
    rng = np.random.default_rng(seed)
    for variable in network.weights:
        noise = rng.normal(size=variable.shape).astype(np.float32)
        if "layer_norm/gamma" in variable.name:
            variable.assign(1.0 + 0.1 * noise)
        elif "layer_norm/beta" in variable.name:
            variable.assign(0.1 * noise)
        else:
            variable.assign(WEIGHT_STD * noise)
    return network


def run_model_garden(network, inputs, two_stream, state=None):
    """(stream, new_mems) in the original's mask conventions, translated."""
    permutation_mask = inputs.get("perm_mask")
    target_mapping = inputs.get("target_mapping") if two_stream else None
    output, new_mems = network(
        input_ids=inputs["input_ids"], segment_ids=inputs["segment_ids"],
        input_mask=1.0 - inputs["input_mask"], state=state,
        permutation_mask=None if permutation_mask is None else 1.0 - permutation_mask,
        target_mapping=target_mapping,
        masked_tokens=np.zeros(inputs["input_ids"].shape, np.float32) if two_stream else None)
    return output.numpy(), new_mems
