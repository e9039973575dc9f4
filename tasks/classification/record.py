"""Classification in the task registry: GLUE, XNLI and custom sentence (pair)
classification and regression, `run_classifier.py`; a regression is a
classification without a label list (earlier versions recorded it as
`regression`)."""

from contracts.task_record import TaskRecord
from tasks.classification.model import SequenceClassifier
from tasks.classification.serving import serve


def model_from_fields(meta, encoder):
    """The classifier of an export_meta.json written before `task_model`: one
    logit per label, one output for a regression."""
    return SequenceClassifier(encoder, len(meta.label_list) if meta.label_list else 1)


TASK = TaskRecord(name="classification", title="classification", command_line="run_classifier.py",
                  aliases=("regression",), serve=serve, model_from_fields=model_from_fields)
