"""One home per task: `tasks/<name>/` holds the task's reader(s), its features
in Python and in the graph, its models and heads, metrics, predictions and
serving module, and its record (`record.py`), registered under its one name
in `contracts.task_registry`. Homes run on the training engine (`training/`)
and import no family and no other task; a family's own part of a task (XLNet's
question-answering head) lives in the family's home and is named by its record."""
