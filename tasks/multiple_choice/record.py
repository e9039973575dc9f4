"""Multiple choice in the task registry: SWAG and any choice set in its
layouts, `run_swag.py`."""

from contracts.task_record import TaskRecord
from tasks.multiple_choice.model import MultipleChoiceClassifier
from tasks.multiple_choice.serving import serve


def model_from_fields(meta, encoder):
    """The choice scorer of an export_meta.json written before `task_model`."""
    return MultipleChoiceClassifier(encoder)


TASK = TaskRecord(name="multiple_choice", title="multiple choice", command_line="run_swag.py",
                  serve=serve, model_from_fields=model_from_fields)
