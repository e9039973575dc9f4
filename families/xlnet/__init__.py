"""XLNet's home: config and presets, the two-stream Transformer-XL, text side,
checkpoint name tables, permutation-LM pretraining and its question-answering
head; `family.py` registers it."""
