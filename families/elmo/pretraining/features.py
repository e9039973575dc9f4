"""ELMo's pretraining records: one window of `unroll_steps` tokens of one row
of the batch, forward and backward, under the original's feed names
(`bilm/training.py`), and the words themselves for the character inputs."""

from data.pretraining.features import BYTES, INT

TOKEN_IDS = "token_ids"  # the inputs' vocabulary ids
NEXT_TOKEN_ID = "next_token_id"  # the targets: each input's next token
TOKENS = "tokens"  # the inputs' words (UTF-8), "<S>" and "</S>" at sentence boundaries
TOKENS_CHARACTERS = "tokens_characters"  # the reader's character ids of TOKENS (not in records)
# Feature-name suffix of each direction; the backward LM reads each sentence reversed.
DIRECTIONS = (("forward", ""), ("backward", "_reverse"))
ID_FEATURES = tuple(name + suffix for _, suffix in DIRECTIONS for name in (TOKEN_IDS, NEXT_TOKEN_ID))


def feature_layout(unroll_steps):
    """Ordered {name: (width, kind)} of one record."""
    return {name + suffix: (unroll_steps, BYTES if name == TOKENS else INT)
            for _, suffix in DIRECTIONS for name in (TOKEN_IDS, NEXT_TOKEN_ID, TOKENS)}
