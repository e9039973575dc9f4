"""The tests' one tiny BERT config: every part of the architecture, small enough
to build and run in a moment. A test that needs another size derives it with
`TINY_CONFIG.replace(...)` and says why."""

from families.bert.config import BertConfig

TINY_CONFIG = BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                         intermediate_size=64, max_position_embeddings=64)
