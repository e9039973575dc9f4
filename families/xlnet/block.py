"""One XLNet layer: two-stream relative attention, then the feed-forward block on each stream."""

import keras

from families.xlnet.feed_forward import FeedForward
from families.xlnet.relative_attention import RelativeAttention


@keras.saving.register_keras_serializable(package="bert_garden")
class XLNetBlock(keras.layers.Layer):
    """Post-LN block shared by both streams (same weights for content and query).

    Example:
    >>> block = XLNetBlock(d_model=768, n_head=12, d_head=64, d_inner=3072)
    >>> h, g = block(h, g, content_mask, query_mask, pos_emb, seg_mat, biases)
    """

    def __init__(self, d_model, n_head, d_head, d_inner, ff_activation="gelu", dropout=0.1,
                 dropatt=0.1, initializer_range=0.02, layer_norm_eps=1e-12, **kwargs):
        super().__init__(**kwargs)
        self.d_model = d_model
        self.n_head = n_head
        self.d_head = d_head
        self.d_inner = d_inner
        self.ff_activation = ff_activation
        self.dropout = dropout
        self.dropatt = dropatt
        self.initializer_range = initializer_range
        self.layer_norm_eps = layer_norm_eps
        self.rel_attn = RelativeAttention(n_head, d_head, dropout, dropatt, initializer_range,
                                          layer_norm_eps, dtype=self.dtype_policy, name="rel_attn")
        self.ff = FeedForward(d_model, d_inner, ff_activation, dropout, initializer_range,
                              layer_norm_eps, dtype=self.dtype_policy, name="ff")

    def build(self, h_shape):
        self.rel_attn.build(h_shape)
        self.ff.build(h_shape)
        self.built = True

    def call(self, h, g, content_mask, query_mask, pos_emb, seg_mat, biases, mems=None,
             target_mapping=None, training=None):
        h, g = self.rel_attn(h, g, content_mask, query_mask, pos_emb, seg_mat, biases, mems=mems,
                             target_mapping=target_mapping, training=training)
        h = self.ff(h, training=training)
        if g is not None:
            g = self.ff(g, training=training)
        return h, g

    def get_config(self):
        config = super().get_config()
        config.update(d_model=self.d_model, n_head=self.n_head, d_head=self.d_head,
                      d_inner=self.d_inner, ff_activation=self.ff_activation, dropout=self.dropout,
                      dropatt=self.dropatt, initializer_range=self.initializer_range,
                      layer_norm_eps=self.layer_norm_eps)
        return config
