"""Two-stream relative multi-head attention (XLNet, after Transformer-XL)."""

import keras
from keras import ops

from modeling.layer_norm import LayerNorm

_MASKED = 1e30  # the original subtracts 1e30 * mask from the float32 scores


def rel_shift(scores, klen):
    """[b, n, qlen, R] scores against relative distances -> [b, n, qlen, klen]
    against keys: row i keeps the R-1 columns after shifting it left by qlen - i."""
    b, n, qlen, r = ops.shape(scores)
    scores = ops.reshape(scores, (b, n, r, qlen))[:, :, 1:, :]
    return ops.reshape(scores, (b, n, qlen, r - 1))[:, :, :, :klen]


@keras.saving.register_keras_serializable(package="bert_garden")
class RelativeAttention(keras.layers.Layer):
    """Relative attention with content (`r_w_bias`), position (`r_r_bias`) and
    segment (`r_s_bias`, `seg_embed`) terms, output projection, dropout, residual
    and post-LayerNorm.

    One set of projections serves both streams: the content stream `h` queries
    from every position; the query stream `g` (when given) queries only the
    targets that `target_mapping` [b, num_predict, qlen] places, with the mask that
    hides each target's own content. Keys and values are memory + content stream.
    The biases are passed in, since the original shares them across layers unless
    `untie_r`. Projections are [d_model, n_head, d_head] without bias, as the original.
    """

    def __init__(self, n_head, d_head, dropout=0.1, dropatt=0.1, initializer_range=0.02,
                 layer_norm_eps=1e-12, **kwargs):
        super().__init__(**kwargs)
        self.n_head = n_head
        self.d_head = d_head
        self.dropout = dropout
        self.dropatt = dropatt
        self.initializer_range = initializer_range
        self.layer_norm_eps = layer_norm_eps
        self.scale = 1.0 / d_head ** 0.5
        self.layer_norm = LayerNorm(epsilon=layer_norm_eps, dtype=self.dtype_policy, name="layer_norm")
        self.attention_dropout = keras.layers.Dropout(dropatt, dtype=self.dtype_policy)
        self.output_dropout = keras.layers.Dropout(dropout, dtype=self.dtype_policy)

    def build(self, h_shape):
        d_model = h_shape[-1]
        init = keras.initializers.RandomNormal(stddev=self.initializer_range)
        for name in ("q", "k", "v", "o", "r"):
            setattr(self, name, self.add_weight(
                name=name, shape=(d_model, self.n_head, self.d_head), initializer=init))
        self.layer_norm.build(h_shape)
        self.built = True

    def call(self, h, g, content_mask, query_mask, pos_emb, seg_mat, biases, mems=None,
             target_mapping=None, training=None):
        """`pos_emb` [R, d_model] (with bi_data [b, R, d_model]); `seg_mat` bool
        [b, qlen, klen] (True: other segment) or None; `biases` = (r_w_bias,
        r_r_bias, r_s_bias, seg_embed) of this layer. `g` [b, num_predict,
        d_model] comes with its `target_mapping`."""
        cat = h if mems is None else ops.concatenate([ops.cast(mems, h.dtype), h], axis=1)
        k_head = ops.einsum("bjh,hnd->bjnd", cat, self.k)
        v_head = ops.einsum("bjh,hnd->bjnd", cat, self.v)
        batched_pos = len(pos_emb.shape) == 3  # bi_data: forward and backward halves
        r_head = ops.einsum("bjh,hnd->bjnd" if batched_pos else "jh,hnd->jnd", pos_emb, self.r)
        heads = (k_head, v_head, r_head, seg_mat, biases)
        q_head_h = ops.einsum("bih,hnd->bind", h, self.q)
        output_h = self._post_attention(
            h, self._attend(q_head_h, heads, content_mask, training), training)
        if g is None:
            return output_h, None
        # Queries placed at their targets' positions, so the masks index them as rows.
        q_head_g = ops.einsum("bmnd,bml->blnd", ops.einsum("bmh,hnd->bmnd", g, self.q), target_mapping)
        attn_vec_g = self._attend(q_head_g, heads, query_mask, training)
        attn_vec_g = ops.einsum("blnd,bml->bmnd", attn_vec_g, target_mapping)
        return output_h, self._post_attention(g, attn_vec_g, training)

    def _attend(self, q_head, heads, mask, training):
        k_head, v_head, r_head, seg_mat, (r_w_bias, r_r_bias, r_s_bias, seg_embed) = heads
        content = ops.einsum("bind,bjnd->bnij", q_head + r_w_bias, k_head)
        position = ops.einsum("bind,bjnd->bnij" if len(r_head.shape) == 4 else "bind,jnd->bnij",
                              q_head + r_r_bias, r_head)
        position = rel_shift(position, ops.shape(k_head)[1])
        scores = content + position
        if seg_mat is not None:
            segment = ops.einsum("bind,snd->bnis", q_head + r_s_bias, seg_embed)
            same, other = segment[..., 0:1], segment[..., 1:2]
            scores = scores + ops.where(seg_mat[:, None], other, same)
        # Keras casts float call arguments to the compute dtype; 0/1 survive any of them.
        scores = ops.cast(scores, "float32") * self.scale - _MASKED * ops.cast(mask, "float32")[:, None]
        probs = ops.cast(ops.softmax(scores, axis=-1), q_head.dtype)
        probs = self.attention_dropout(probs, training=training)
        return ops.einsum("bnij,bjnd->bind", probs, v_head)

    def _post_attention(self, residual, attn_vec, training):
        out = ops.einsum("bind,hnd->bih", attn_vec, self.o)
        out = self.output_dropout(out, training=training)
        return self.layer_norm(out + residual)

    def get_config(self):
        config = super().get_config()
        config.update(n_head=self.n_head, d_head=self.d_head, dropout=self.dropout,
                      dropatt=self.dropatt, initializer_range=self.initializer_range,
                      layer_norm_eps=self.layer_norm_eps)
        return config
