"""`XLNetPretrainer`: the backbone and its tied LM head, predicting the
permutation-LM targets from the query stream."""

import keras

from families.xlnet.backbone import XLNetBackbone
from families.xlnet.config import XLNetConfig
from families.xlnet.lm_head import XLNetLMHead


@keras.saving.register_keras_serializable(package="bert_garden")
class XLNetPretrainer(keras.Model):
    """Logits over the vocabulary at each prediction that `target_mapping` places.

    Inputs are the backbone's (`input_ids`, `segment_ids`, `perm_mask`,
    `target_mapping`, optional `input_mask`) and its optional `mems`; the
    outputs are `lm_logits` [batch, num_predict, n_token], float32, and with
    `mem_len > 0` the backbone's `new_mems` for the next segment. Built on
    creation, so its variables exist before the first batch; `encoder` is the
    backbone.

    Example:
    >>> model = XLNetPretrainer(XLNetConfig.from_preset("xlnet_tiny"))
    >>> model(batch)["lm_logits"].shape
    (batch, num_predict, 100)
    """

    def __init__(self, config, **kwargs):
        if isinstance(config, dict):
            config = XLNetConfig.from_dict(config)
        super().__init__(**kwargs)
        self.config = config
        self.encoder = XLNetBackbone(config, dtype=self.dtype_policy, name="transformer")
        self.lm_head = XLNetLMHead(self.encoder.word_embedding, dtype=self.dtype_policy, name="lm_loss")
        self.encoder.build()
        self.lm_head.build((None, None, config.d_model))
        self.built = True

    def call(self, inputs, mems=None, training=None):
        encoded = self.encoder(inputs, mems=mems, training=training)
        outputs = {"lm_logits": self.lm_head(encoded["query_output"])}
        if "new_mems" in encoded:
            outputs["new_mems"] = encoded["new_mems"]
        return outputs

    def get_config(self):
        return {"config": self.config.to_dict(), "name": self.name, "trainable": self.trainable}

    @classmethod
    def from_config(cls, config):
        return cls(**config)
