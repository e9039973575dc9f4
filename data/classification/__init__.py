"""Sentence (pair) classification: GLUE and custom readers, examples, features."""
