"""Where each of our biLM variables lives in the original `lm_weights.hdf5`."""

import re

# (pattern on the end of our variable path, dataset name template)
_TABLE = (
    (r"char_cnn/(char_embed)", r"\1"),
    (r"char_cnn/([Wb]_cnn_\d+)", r"CNN/\1"),
    (r"char_cnn/(CNN_high_\d+/(?:W_carry|b_carry|W_transform|b_transform))", r"\1"),
    (r"char_cnn/(CNN_proj/[Wb]_proj)", r"\1"),
    (r"token_embedding/(embedding)", r"\1"),
    (r"(RNN_[01])/(Cell\d+)/(W_0|B|W_P_0)", r"\1/RNN/MultiRNNCell/\2/LSTMCell/\3"),
)
_PATTERNS = [(re.compile(r"(?:^|/)" + pattern + "$"), template) for pattern, template in _TABLE]

# Tables that the original stores without the zero padding row 0 that it
# prepends at load (its ids are shifted by one to make 0 free for padding).
PADDED_TABLES = ("char_embed", "embedding")


def hdf5_name(path):
    """The dataset name of our variable `path`, or None (LSTM states, heads)."""
    for pattern, template in _PATTERNS:
        match = pattern.search(path)
        if match:
            return match.expand(template)
    return None
