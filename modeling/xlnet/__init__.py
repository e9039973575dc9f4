"""XLNet (Yang et al. 2019), backend-agnostic: only `keras` and `keras.ops`, no `tf.*`."""

from modeling.xlnet.backbone import XLNetBackbone
from modeling.xlnet.config import XLNET_PRESETS, XLNetConfig, XLNetConfigError
from modeling.xlnet.lm_head import XLNetLMHead

__all__ = ["XLNET_PRESETS", "XLNetBackbone", "XLNetConfig", "XLNetConfigError", "XLNetLMHead"]
