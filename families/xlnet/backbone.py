"""`XLNetBackbone`: the Transformer-XL encoder of XLNet (Yang et al. 2019) with
two-stream attention and segment recurrence."""

import keras
from keras import ops

from families.xlnet.block import XLNetBlock
from families.xlnet.config import XLNetConfig
from families.xlnet.masks import attention_masks
from families.xlnet.positional_encoding import relative_positional_encoding


@keras.saving.register_keras_serializable(package="bert_garden")
class XLNetBackbone(keras.Model):
    """XLNet encoder; batch-major throughout (the original is [len, batch]).

    Inputs, a dict of [batch, qlen] tensors in the original's conventions:
    `input_ids`; optional `segment_ids` (0/1/2, `<cls>` in its own segment; only
    "same or other segment" matters), `input_mask` (1.0 = padding), `perm_mask`
    [batch, qlen, qlen] (1 = i may not attend to j) and `target_mapping`
    [batch, num_predict, qlen] (one-hot rows placing each prediction). `mems`: a
    list of n_layer [batch, mlen, d_model] tensors from the previous segment.

    Outputs: `sequence_output` [batch, qlen, d_model] (content stream);
    `encoder_outputs`, each block's content stream (before the output dropout);
    `query_output` [batch, num_predict, d_model] (query stream, only when
    `target_mapping` is given: it starts from `mask_emb` at each target); and
    `new_mems` (only when `mem_len > 0`): per layer, that layer's input over the
    first `reuse_len` positions (all if 0) appended to `mems`, last `mem_len`
    kept, with no gradient through it.

    Variables follow the original's layout: `r_w_bias`, `r_r_bias`, `r_s_bias`
    are [n_layer, n_head, d_head] with `untie_r`, else one [n_head, d_head]
    shared by all layers; `seg_embed` is [n_layer, 2, n_head, d_head].

    Example:
    >>> backbone = XLNetBackbone(XLNetConfig.from_preset("xlnet_tiny"))
    >>> out = backbone({"input_ids": ids, "segment_ids": seg, "input_mask": pad})
    >>> out["sequence_output"].shape
    (batch, qlen, 32)
    """

    def __init__(self, config, dtype=None, **kwargs):
        if isinstance(config, dict):
            config = XLNetConfig.from_dict(config)
        super().__init__(dtype=dtype, **kwargs)
        self.config = config
        self.initializer = keras.initializers.RandomNormal(stddev=config.initializer_range)
        self.word_embedding = keras.layers.Embedding(
            config.n_token, config.d_model, embeddings_initializer=self.initializer,
            dtype=self.dtype_policy, name="word_embedding")
        self.blocks = [
            XLNetBlock(config.d_model, config.n_head, config.d_head, config.d_inner,
                       config.ff_activation, config.dropout, config.dropatt,
                       config.initializer_range, config.layer_norm_eps,
                       dtype=self.dtype_policy, name=f"layer_{i}")
            for i in range(config.n_layer)
        ]
        self.dropout = keras.layers.Dropout(config.dropout, dtype=self.dtype_policy)

    def build(self, inputs_shape=None):
        c = self.config
        self.word_embedding.build((None, None))
        self.mask_emb = self.add_weight(name="mask_emb", shape=(1, 1, c.d_model),
                                        initializer=self.initializer)
        bias_shape = ((c.n_layer,) if c.untie_r else ()) + (c.n_head, c.d_head)
        for name in ("r_w_bias", "r_r_bias", "r_s_bias"):
            setattr(self, name, self.add_weight(name=name, shape=bias_shape, initializer=self.initializer))
        self.seg_embed = self.add_weight(name="seg_embed", shape=(c.n_layer, 2, c.n_head, c.d_head),
                                         initializer=self.initializer)
        for block in self.blocks:
            block.build((None, None, c.d_model))
        self.built = True

    def _layer_biases(self, i):
        if self.config.untie_r:
            return self.r_w_bias[i], self.r_r_bias[i], self.r_s_bias[i], self.seg_embed[i]
        return self.r_w_bias, self.r_r_bias, self.r_s_bias, self.seg_embed[i]

    def call(self, inputs, mems=None, training=None):
        c = self.config
        input_ids = inputs["input_ids"]
        batch, qlen = ops.shape(input_ids)[0], ops.shape(input_ids)[1]
        if mems is not None and len(mems) != c.n_layer:
            raise ValueError(f"mems: expected {c.n_layer} tensors (one per layer), got {len(mems)}")
        mlen = 0 if mems is None else ops.shape(mems[0])[1]
        content_mask, query_mask = attention_masks(
            qlen, mlen, inputs.get("input_mask"), inputs.get("perm_mask"), c.attn_type, c.same_length)

        h = self.dropout(self.word_embedding(input_ids), training=training)
        target_mapping = inputs.get("target_mapping")
        g = None
        if target_mapping is not None:
            target_mapping = ops.cast(target_mapping, h.dtype)
            num_predict = ops.shape(target_mapping)[1]
            g = ops.broadcast_to(ops.cast(self.mask_emb, h.dtype), (batch, num_predict, c.d_model))
            g = self.dropout(g, training=training)

        seg_mat = None
        if inputs.get("segment_ids") is not None:
            segment_ids = ops.cast(inputs["segment_ids"], "int32")
            memory_segments = ops.pad(segment_ids, ((0, 0), (mlen, 0)))  # memory counts as segment 0
            seg_mat = ops.not_equal(segment_ids[:, :, None], memory_segments[:, None, :])

        pos_emb = relative_positional_encoding(
            qlen, mlen + qlen, c.d_model, c.attn_type, c.bi_data, c.clamp_len, batch, h.dtype)
        pos_emb = self.dropout(pos_emb, training=training)

        new_mems, encoder_outputs = [], []
        for i, block in enumerate(self.blocks):
            layer_mems = None if mems is None else mems[i]
            if c.mem_len > 0:
                new_mems.append(self._cache_mem(h, layer_mems))
            h, g = block(h, g, content_mask, query_mask, pos_emb, seg_mat, self._layer_biases(i),
                         mems=layer_mems, target_mapping=target_mapping, training=training)
            encoder_outputs.append(h)

        outputs = {"sequence_output": self.dropout(h, training=training),
                   "encoder_outputs": encoder_outputs}
        if g is not None:
            outputs["query_output"] = self.dropout(g, training=training)
        if c.mem_len > 0:
            outputs["new_mems"] = new_mems
        return outputs

    def _cache_mem(self, h, prev_mem):
        reuse_len = self.config.reuse_len
        current = h[:, :reuse_len] if reuse_len > 0 else h
        if prev_mem is not None:
            current = ops.concatenate([ops.cast(prev_mem, h.dtype), current], axis=1)
        return ops.stop_gradient(current[:, -self.config.mem_len:])

    def get_config(self):
        return {"config": self.config.to_dict(), "name": self.name, "trainable": self.trainable}

    @classmethod
    def from_config(cls, config):
        return cls(**config)
