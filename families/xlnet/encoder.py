"""`XLNetEncoder`: XLNet behind the encoder interface of
`modeling/encoder_interface.py`, so the task models take it as they take BERT."""

import keras
from keras import ops

from modeling.dense import Dense
from families.xlnet.backbone import XLNetBackbone
from families.xlnet.config import XLNetConfig


@keras.saving.register_keras_serializable(package="bert_garden")
class XLNetEncoder(keras.Model):
    """XLNet on the interface's inputs: `input_word_ids`, `input_mask` (1 on real
    tokens; XLNet's own mask, 1 on padding, is its complement) and
    `input_type_ids` (XLNet's segment ids, 0/1/2 with `<cls>` last). Outputs:
    `sequence_output` (the content stream), `pooled_output` (the original's
    sequence summary: a tanh projection of the last position, `<cls>` in
    XLNet's left-padded inputs) and `encoder_outputs` (each block's output).

    Example:
    >>> encoder = XLNetEncoder(XLNetConfig.from_preset("xlnet_tiny"))
    >>> classifier = SequenceClassifier(encoder, num_classes=3)
    """

    def __init__(self, config, dtype=None, **kwargs):
        if isinstance(config, dict):
            config = XLNetConfig.from_dict(config)
        # === Layers ===
        backbone = XLNetBackbone(config, dtype=dtype, name="backbone")
        summary = Dense(config.d_model, activation="tanh",
                        kernel_initializer=keras.initializers.RandomNormal(
                            stddev=config.initializer_range),
                        dtype=dtype, name="summary")

        # === Functional model ===
        word_ids = keras.Input(shape=(None,), dtype="int32", name="input_word_ids")
        input_mask = keras.Input(shape=(None,), dtype="int32", name="input_mask")
        type_ids = keras.Input(shape=(None,), dtype="int32", name="input_type_ids")
        outputs = backbone({"input_ids": word_ids, "segment_ids": type_ids,
                            "input_mask": ops.cast(1 - input_mask, "float32")})
        x = outputs["sequence_output"]
        super().__init__(
            inputs={"input_word_ids": word_ids, "input_mask": input_mask,
                    "input_type_ids": type_ids},
            outputs={"sequence_output": x, "pooled_output": summary(x[:, -1]),
                     "encoder_outputs": outputs["encoder_outputs"]},
            dtype=dtype, **kwargs)

        # === Config ===
        self.config = config
        self.backbone = backbone
        self.summary = summary

    @property
    def fine_tuning_weights(self):
        """The sequence summary: the original creates it in fine-tuning, so a
        pretrained checkpoint may lack it and it starts, as the task's head does,
        from its initializer."""
        return self.summary.weights

    def get_config(self):
        return {"config": self.config.to_dict(), "name": self.name, "trainable": self.trainable}

    @classmethod
    def from_config(cls, config):
        return cls(**config)
