"""Backend-agnostic BERT modeling: only `keras` and `keras.ops`, no `tf.*`."""

from modeling.config import BertConfig, PRESETS
from modeling.encoder import BertEncoder

__all__ = ["BertConfig", "PRESETS", "BertEncoder"]
