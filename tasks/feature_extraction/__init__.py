"""Feature extraction (`extract_features.py`): per-token activations of chosen
encoder layers in the original's JSON layout (`extraction.py`), and the
record (`record.py`)."""
