"""Question answering in the task registry: extractive SQuAD v1.1 and v2.0,
`run_squad.py` (earlier versions recorded it as `squad`)."""

from contracts.task_record import TaskRecord
from export.export_meta import ExportMetaError
from tasks.question_answering.model import SpanLabeler
from tasks.question_answering.serving import serve

# What export_meta.json's `squad` object holds: the post-processing the SavedModel does.
SQUAD_OPTIONS = ("max_query_length", "n_best_size", "max_answer_length",
                 "version_2_with_negative", "null_score_diff_threshold")


def check_meta(meta):
    """Raises `ExportMetaError` unless `meta` has a `doc_stride` and exactly the `squad` options."""
    missing = [k for k in SQUAD_OPTIONS if k not in (meta.squad or {})]
    if missing or meta.doc_stride is None:
        raise ExportMetaError(f"task {meta.task!r} needs doc_stride and squad options {missing}")
    unknown = sorted(set(meta.squad) - set(SQUAD_OPTIONS))
    if unknown:
        raise ExportMetaError(f"unknown squad option(s) {unknown}; expected {SQUAD_OPTIONS}")


def model_from_fields(meta, encoder):
    """BERT's span labeler, for an export_meta.json written before `task_model`."""
    return SpanLabeler(encoder)


TASK = TaskRecord(name="question_answering", title="question answering", command_line="run_squad.py",
                  aliases=("squad",), check_meta=check_meta, serve=serve,
                  model_from_fields=model_from_fields)
