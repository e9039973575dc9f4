"""Checkpoint interop: original TF1, Hugging Face, TF Model Garden and our own weights."""
