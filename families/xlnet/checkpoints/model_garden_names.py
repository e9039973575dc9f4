"""The original XLNet TF1 names <-> keys of a TF Model Garden
`official.nlp.modeling.networks.XLNetBase` object checkpoint.

Model Garden holds the same tensors as the original under other names:
`_transformer_xl/{content,positional,segment}_attention_bias` are `r_w_bias`,
`r_r_bias`, `r_s_bias` (stacked unless `tie_attention_biases`, the inverse of
`untie_r`); each layer's attention is a Keras MultiHeadAttention whose
`query/key/value/encoding` kernels are `q/k/v/r` and whose output kernel is the
original `o` transposed (1, 2, 0) to [n_head, d_head, d_model]; `_inner_dense` and
`_output_dense` are the feed-forward layers. Keys are relative to the object the
network hangs from (`encoder/` when written by `tf.train.Checkpoint(encoder=network)`).
"""

from checkpoints.name_templates import NameTable
from families.xlnet.checkpoints.tf1_names import TRANSFORMER

SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
_XL = "_transformer_xl"
_LAYER = _XL + "/transformer_xl_layers/{i}"
_TF1_LAYER = TRANSFORMER + "/layer_{i}"
TABLE = NameTable([
    (TRANSFORMER + "/word_embedding/lookup_table", "_embedding_layer/embeddings", None),
    (TRANSFORMER + "/mask_emb/mask_emb", "mask_emb.Smask_emb", None),
    (TRANSFORMER + "/seg_embed", "seg_embed", None),
    (TRANSFORMER + "/r_w_bias", _XL + "/content_attention_bias", None),
    (TRANSFORMER + "/r_r_bias", _XL + "/positional_attention_bias", None),
    (TRANSFORMER + "/r_s_bias", _XL + "/segment_attention_bias", None),
    (_TF1_LAYER + "/rel_attn/q/kernel", _LAYER + "/_attention_layer/_query_dense/kernel", None),
    (_TF1_LAYER + "/rel_attn/k/kernel", _LAYER + "/_attention_layer/_key_dense/kernel", None),
    (_TF1_LAYER + "/rel_attn/v/kernel", _LAYER + "/_attention_layer/_value_dense/kernel", None),
    (_TF1_LAYER + "/rel_attn/r/kernel", _LAYER + "/_attention_layer/_encoding_dense/kernel", None),
    (_TF1_LAYER + "/rel_attn/o/kernel", _LAYER + "/_attention_layer/_output_dense/kernel", (1, 2, 0)),
    (_TF1_LAYER + "/rel_attn/LayerNorm/{v}", _LAYER + "/_attention_layer_norm/{v}", None),
    (_TF1_LAYER + "/ff/layer_1/{v}", _LAYER + "/_inner_dense/{v}", None),
    (_TF1_LAYER + "/ff/layer_2/{v}", _LAYER + "/_output_dense/{v}", None),
    (_TF1_LAYER + "/ff/LayerNorm/{v}", _LAYER + "/_output_layer_norm/{v}", None),
])


def network_root(names):
    """The object path the `XLNetBase` hangs from in a checkpoint, or None."""
    marker = f"/{_XL}/content_attention_bias{SUFFIX}"
    for name in names:
        if name.endswith(marker):
            return name[: -len(marker)]
    return None


def model_garden_to_tf1(tensors, root):
    """{TF1 name: array} from an object checkpoint's {key: array} (other objects ignored)."""
    prefix = root + "/"
    relative = {k[len(prefix): -len(SUFFIX)]: v for k, v in tensors.items()
                if k.startswith(prefix) and k.endswith(SUFFIX)}
    return TABLE.convert(relative, to_b=False)[0]


def tf1_to_model_garden(tensors, root="encoder"):
    """{object checkpoint key: array} for the TF1 tensors Model Garden has (its
    XLNetBase has no heads); returns (keys, TF1 names left out)."""
    out, left_out = TABLE.convert(tensors)
    return {f"{root}/{k}{SUFFIX}": v for k, v in out.items()}, left_out
