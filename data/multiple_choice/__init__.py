"""Multiple choice (SWAG): reader and per-choice features."""
