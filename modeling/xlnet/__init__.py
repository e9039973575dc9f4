"""XLNet (Yang et al. 2019), backend-agnostic: only `keras` and `keras.ops`, no `tf.*`."""

from modeling.xlnet.backbone import XLNetBackbone
from modeling.xlnet.config import XLNET_PRESETS, XLNetConfig, XLNetConfigError
from modeling.xlnet.lm_head import XLNetLMHead
from modeling.xlnet.sequence_summary import XLNetClassificationHead
from modeling.xlnet.squad_head import XLNetSquadHead

__all__ = ["XLNET_PRESETS", "XLNetBackbone", "XLNetClassificationHead", "XLNetConfig", "XLNetConfigError",
           "XLNetLMHead", "XLNetSquadHead"]
