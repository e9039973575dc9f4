"""Sentence (pair) classification and regression (`run_classifier.py`): the
GLUE, XNLI and custom readers (`glue_readers.py`, `custom_reader.py`,
`examples.py`), features in Python and as cached TFRecords (`features.py`),
the models (`model.py`), the task (`task.py`), its metrics and GLUE
submission files (`metrics.py`, `submission.py`), the SavedModel
(`serving.py`) and the record (`record.py`)."""
