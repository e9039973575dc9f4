"""Token tagging, CoNLL-2003 NER and any IOB-tagged token file (`run_ner.py`):
the reader (`conll_reader.py`), first-piece-labelled windows (`features.py`),
the models (`model.py`; BERT's feature-based tagger of the paper's section
5.4, `feature_based_tagger.py`), the task (`task.py`), conlleval's
entity-level scores (`metrics.py`), the predictions file (`predictions.py`),
the SavedModel (`serving.py`) and the record (`record.py`)."""
