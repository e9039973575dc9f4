"""Each task lives in its home and is found through the task registry: no
shared module below the tasks (contracts, modeling, data, checkpoints, the
training engine, the export) imports a task home, and a task home imports no
other task, no family and no application. Families may import a task home
(their part of a task, as XLNet's question-answering head); applications run
tasks."""

import pytest

from contracts import task_registry
from tests.source_imports import (home_of, imported_modules, is_application_module, part_of,
                                  python_files)

BELOW_THE_TASKS = ("utils", "contracts", "modeling", "data", "checkpoints", "training", "export")


def task_home_of(module):
    """The task home a dotted `module` is in, or None."""
    parts = module.split(".")
    return parts[1] if parts[0] == "tasks" and len(parts) > 1 and parts[1] in task_registry.names() else None


def task_imports_below_the_tasks():
    """[(path, module, line)] of every task home imported by a shared module below the tasks."""
    return sorted((path, module, line) for path in python_files() if part_of(path) in BELOW_THE_TASKS
                  for module, line in imported_modules(path).items() if task_home_of(module))


def test_shared_code_below_the_tasks_imports_no_task_home():
    assert task_imports_below_the_tasks() == []


@pytest.mark.parametrize("name", task_registry.names())
def test_a_task_home_imports_no_other_task_no_family_and_no_application(name):
    for path in python_files():
        if home_of(path, "tasks") != name:
            continue
        modules = imported_modules(path)
        assert {task_home_of(m) for m in modules} <= {None, name}, path
        assert [m for m in modules if m.split(".")[0] == "families"] == [], path
        assert [m for m in modules if is_application_module(m)] == [], path


def test_every_registered_task_has_its_home_and_record():
    for name in task_registry.names():
        record = task_registry.task(name)
        assert record.name == name and record.title and record.command_line
        assert task_registry.TASK_MODULES[name] == f"tasks.{name}.record"
