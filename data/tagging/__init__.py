"""Tagging (CoNLL NER): reader and first-piece-labelled windows."""
