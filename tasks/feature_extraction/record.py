"""Feature extraction in the task registry: per-token activations of chosen
encoder layers, `extract_features.py`. Nothing is trained or exported."""

from contracts.task_record import TaskRecord

TASK = TaskRecord(name="feature_extraction", title="feature extraction",
                  command_line="extract_features.py")
