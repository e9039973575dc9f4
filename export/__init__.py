"""Exports: SavedModels for TF Serving and TF Hub modules (TensorFlow only)."""
