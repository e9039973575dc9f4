"""The record of a task: everything runners, exports and family records may ask of it."""

import dataclasses


@dataclasses.dataclass(frozen=True)
class TaskRecord:
    """What a task declares, in its own home (`tasks/<name>/record.py`), for
    shared code to use it without naming it.

    `name` is the one word every layer calls it by: what `export_meta.json`
    records as `task`, what a family record's `tasks` lists, what the docs'
    pages and `--task` style messages say. `aliases` are the names earlier
    versions recorded for it in `export_meta.json` (`squad`, `ner`; a
    classification with one output was `regression`), read as `name`.
    `title` is how people write it; `command_line` the script at the
    repository root that runs it (`run_squad.py`).

    For a task a fine-tuning run exports: `check_meta(meta)` raises
    `export.export_meta.ExportMetaError` naming what an `ExportMeta` of it lacks
    (None: nothing beyond the shared fields); `serve(export_dir, model, meta)`
    writes its TF Serving SavedModel from the fine-tuned model and returns its
    path (None: not served); `model_from_fields(meta, encoder)` rebuilds the
    model of an `export_meta.json` written before `task_model` existed, a BERT
    task model from `label_list` and the task's fields.
    """

    name: str
    title: str
    command_line: str
    aliases: tuple = ()
    check_meta: object = None
    serve: object = None
    model_from_fields: object = None
