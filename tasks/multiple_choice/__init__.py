"""Multiple choice, SWAG and any choice set in its layouts (`run_swag.py`):
the reader (`swag_reader.py`), per-choice features (`features.py`), the
models (`model.py`), the task (`task.py`), the predictions file
(`predictions.py`), the SavedModel (`serving.py`) and the record (`record.py`)."""
