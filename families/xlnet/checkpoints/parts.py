"""An XLNet backbone and its heads as one set of variables, which is what the
checkpoint code reads into and writes from, in any of the XLNet layouts."""

from checkpoints.export_formats import named_weights
from checkpoints.loader import load_tensors
from families.xlnet.checkpoints.hf_names import hf_to_tf1, tf1_to_hf
from families.xlnet.checkpoints.tf1_names import LOGIT_SCOPE, TAGGING_SCOPE, xlnet_tf1_name
from modeling.heads import TokenClassificationHead
from families.xlnet.backbone import XLNetBackbone
from families.xlnet.sequence_summary import XLNetClassificationHead
from families.xlnet.lm_head import XLNetLMHead
from families.xlnet.squad_head import XLNetSquadHead


class XLNetParts:
    """`weights` of a backbone and heads together, each variable once (the LM
    head's decoder is the backbone's word embedding). Heads are found in
    checkpoints by their variable paths (`families.xlnet.checkpoints.tf1_names`)."""

    def __init__(self, backbone, *heads):
        self.backbone = backbone
        self.config = backbone.config
        self.heads = [h for h in heads if h is not None]

    @property
    def weights(self):
        seen, out = set(), []
        for layer in [self.backbone, *self.heads]:
            for variable in layer.weights:
                if variable.path not in seen:
                    seen.add(variable.path)
                    out.append(variable)
        return out


def build_parts(config, tf1_tensors=None):
    """A built backbone with the heads whose variables `tf1_tensors` (a
    checkpoint's, by TF1 name) hold: the LM head, the sequence summary with its
    logit layer (units from the logit bias), the token tagging layer, the SQuAD head."""
    names = tf1_tensors or {}
    backbone = XLNetBackbone(config)
    backbone.build()
    heads = []
    if "model/lm_loss/bias" in names:
        heads.append(XLNetLMHead(backbone.word_embedding, name="lm_head"))
    if f"{LOGIT_SCOPE}/bias" in names:
        units = names[f"{LOGIT_SCOPE}/bias"].shape[0]
        heads.append(XLNetClassificationHead(units, config.d_model, name="sequence_summary"))
    if f"{TAGGING_SCOPE}/bias" in names:
        units = names[f"{TAGGING_SCOPE}/bias"].shape[0]
        heads.append(TokenClassificationHead(units, 0.0, config.initializer_range,
                                             name="token_classification_head"))
    if "start_logits/dense/kernel" in names:
        heads.append(XLNetSquadHead(config.d_model, layer_norm_eps=config.layer_norm_eps, name="squad"))
    for head in heads:
        head.build((None, None, config.d_model))
    return XLNetParts(backbone, *heads)


def load_hf_xlnet(backbone, tensors, *heads):
    """Assigns Hugging Face tensors {name: array} to `backbone` and `heads`,
    strictly: every variable set, every tensor used."""
    parts = XLNetParts(backbone, *heads)
    return load_tensors(parts, hf_to_tf1(tensors, backbone.config.untie_r), xlnet_tf1_name,
                        "Hugging Face tensors", "xlnet_hf", strict=True)


def parts_to_tf1(parts, only=None):
    return named_weights(parts, xlnet_tf1_name, only)


def parts_to_hf(parts, only=None):
    return tf1_to_hf(parts_to_tf1(parts, only), parts.config.n_layer)
