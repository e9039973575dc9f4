"""TF Model Garden `official.nlp.modeling.networks.XLNetBase` variables -> our `XLNetBackbone`.

Model Garden holds the same tensors as the original under other names:
`transformer_xl/{content,positional,segment}_attention_bias` are `r_w_bias`,
`r_r_bias`, `r_s_bias` (one [n_head, d_head] shared by all layers unless
`tie_attention_biases` is off, the original's `untie_r`); each layer's `rel_attn`
is a Keras MultiHeadAttention whose `query/key/value/encoding` kernels are our
`q/k/v/r` ([d_model, n_head, d_head]) and whose `attention_output` kernel is our
`o` stored [n_head, d_head, d_model]; `inner`/`output` are the feed-forward
layers. `seg_embed` and `mask_emb` exist only after a call with segment ids and
(for `mask_emb`) with `two_stream`.
"""

from checkpoints.xlnet_hf_names import XLNetWeightsError, assign


def model_garden_pairs(backbone, network):
    """[(our variable, Model Garden variable, axes to transpose theirs by or None)]."""
    xl = network._transformer_xl
    if xl._tie_attention_biases == backbone.config.untie_r:
        raise XLNetWeightsError(
            f"Model Garden tie_attention_biases={xl._tie_attention_biases} does not fit "
            f"untie_r={backbone.config.untie_r}")
    pairs = [(backbone.word_embedding.embeddings, network._embedding_layer.embeddings, None),
             (backbone.r_w_bias, xl.content_attention_bias, None),
             (backbone.r_r_bias, xl.positional_attention_bias, None),
             (backbone.r_s_bias, xl.segment_attention_bias, None)]
    for ours, theirs in ((backbone.seg_embed, network._segment_embedding),
                         (backbone.mask_emb, network._mask_embedding)):
        if theirs is not None:
            pairs.append((ours, theirs, None))
    for block, layer in zip(backbone.blocks, xl.transformer_xl_layers):
        attention, theirs = block.rel_attn, layer._attention_layer
        for name, dense in (("q", theirs._query_dense), ("k", theirs._key_dense),
                            ("v", theirs._value_dense), ("r", theirs._encoding_dense)):
            pairs.append((getattr(attention, name), dense.kernel, None))
        pairs.append((attention.o, theirs._output_dense.kernel, (2, 0, 1)))
        for ours, norm in ((attention.layer_norm, layer._attention_layer_norm),
                           (block.ff.layer_norm, layer._output_layer_norm)):
            pairs += [(ours.gamma, norm.gamma, None), (ours.beta, norm.beta, None)]
        for ours, dense in ((block.ff.layer_1, layer._inner_dense), (block.ff.layer_2, layer._output_dense)):
            pairs += [(ours.kernel, dense.kernel, None), (ours.bias, dense.bias, None)]
    return pairs


def load_model_garden_xlnet(backbone, network):
    """Copies a called Model Garden `XLNetBase`'s variables into a built `backbone`;
    a mismatch names the Model Garden variable and both shapes."""
    if network._segment_embedding is None:
        raise XLNetWeightsError("Model Garden XLNetBase has no seg_embed yet: call it once with segment_ids")
    for ours, theirs, axes in model_garden_pairs(backbone, network):
        value = theirs.numpy()
        assign(ours, value if axes is None else value.transpose(axes), theirs.name)
