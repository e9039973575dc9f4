"""The main job's built-in data: a corpus from installed text and a small labelled set."""
