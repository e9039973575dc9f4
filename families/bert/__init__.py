"""BERT's home: config and presets, encoder, pretrainer, text side, checkpoint
name tables and pretraining data; `family.py` registers it."""
