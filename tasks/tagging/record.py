"""Tagging in the task registry: CoNLL-2003 NER and any IOB-tagged token file,
`run_ner.py` (earlier versions recorded it as `ner`)."""

from contracts.task_record import TaskRecord
from export.export_meta import ExportMetaError
from tasks.tagging.conll_reader import TAG_SCHEMES
from tasks.tagging.model import TokenClassifier
from tasks.tagging.serving import serve


def check_meta(meta):
    """Raises `ExportMetaError` unless `meta` names its tags and a known tag scheme (or none: chunks)."""
    if not meta.label_list:
        raise ExportMetaError(f"task {meta.task!r} needs label_list")
    if meta.tag_scheme is not None and meta.tag_scheme not in TAG_SCHEMES:
        raise ExportMetaError(f"tag_scheme {meta.tag_scheme!r}: task {meta.task!r} takes one of {TAG_SCHEMES}")


def model_from_fields(meta, encoder):
    """The token classifier of an export_meta.json written before `task_model`."""
    return TokenClassifier(encoder, len(meta.label_list))


TASK = TaskRecord(name="tagging", title="tagging", command_line="run_ner.py", aliases=("ner",),
                  check_meta=check_meta, serve=serve, model_from_fields=model_from_fields)
