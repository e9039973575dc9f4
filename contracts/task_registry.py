"""The one registry of tasks: each name maps to the module of its record
(`tasks/<name>/record.py`, holding `TASK`), imported when first asked for, so
shared code names no task module and reads no table of task names; a new
task is one line here. A name an earlier version recorded (`squad`, `ner`,
`regression`) is an alias its record lists, and `task` answers it with that
record.

Example:
>>> task("squad").name
'question_answering'
>>> names()
('classification', 'question_answering', 'tagging', 'multiple_choice', 'feature_extraction')
"""

import importlib

TASK_MODULES = {
    "classification": "tasks.classification.record",
    "question_answering": "tasks.question_answering.record",
    "tagging": "tasks.tagging.record",
    "multiple_choice": "tasks.multiple_choice.record",
    "feature_extraction": "tasks.feature_extraction.record",
}


class UnknownTaskError(ValueError):
    """A task name no registered task answers to."""


def names():
    """Registered task names, in registration order (without the aliases)."""
    return tuple(TASK_MODULES)


def tasks():
    """Every registered `TaskRecord`."""
    return tuple(importlib.import_module(module).TASK for module in TASK_MODULES.values())


def task(name):
    """The `TaskRecord` registered as `name`, or listing it among its aliases."""
    if name in TASK_MODULES:
        return importlib.import_module(TASK_MODULES[name]).TASK
    for record in tasks():
        if name in record.aliases:
            return record
    earlier = ", ".join(alias for record in tasks() for alias in record.aliases)
    raise UnknownTaskError(f"unknown task {name!r}; registered: {', '.join(names())} (and the names "
                           f"earlier versions wrote: {earlier})")
