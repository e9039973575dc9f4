"""Each family lives in its home and shared code reaches it only through the
registry: no module outside `families/<name>/` imports one (the main job's
and the comparison's shared halves, `demo/` and `comparisons/`, included), a
home imports no other family, and no home imports an application."""

import pytest

from contracts import registry
from tests.source_imports import home_of, imported_modules, is_application_module, python_files

# Folders whose modules compare several families by name, not shared code.
NOT_SHARED = ("tests/", "benchmarks/", "scripts/")


def imported_families(path):
    """{family name: first line} of the family homes `path` imports."""
    found = {}
    for module, line in imported_modules(path).items():
        parts = module.split(".")
        if parts[0] == "families" and len(parts) > 1 and parts[1] in registry.names():
            found.setdefault(parts[1], line)
    return found


def family_imports_of_shared_code():
    """[(path, family, line)] of every import of a family outside its home."""
    offending = []
    for path in python_files():
        if path.startswith(NOT_SHARED):
            continue
        for family, line in imported_families(path).items():
            if family != home_of(path, "families"):
                offending.append((path, family, line))
    return sorted(offending)


def test_shared_code_imports_no_family():
    assert family_imports_of_shared_code() == []


@pytest.mark.parametrize("name", registry.names())
def test_a_family_home_imports_no_other_family(name):
    for path in python_files():
        if home_of(path, "families") == name:
            assert set(imported_families(path)) <= {name}, path


@pytest.mark.parametrize("name", registry.names())
def test_a_family_home_imports_no_application(name):
    for path in python_files():
        if home_of(path, "families") == name:
            assert [m for m in imported_modules(path) if is_application_module(m)] == [], path
