"""Each family lives in its home and shared code reaches it only through the
registry: no module outside `families/<name>/` imports one, but for the
command lines a family's record names as its own."""

import ast
import os
import subprocess

import pytest

from contracts import registry
from tests.conftest import ROOT

# Folders whose modules are about one family or compare several by name, not shared code.
NOT_SHARED = ("tests/", "benchmarks/", "demo/", "scripts/")


def python_files():
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.py"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [path for path in listed if os.path.exists(os.path.join(ROOT, path))]


def home_of(path):
    """The family whose home holds `path`, or None."""
    parts = path.split("/")
    return parts[1] if parts[0] == "families" and len(parts) > 2 else None


def imported_families(path):
    """{family name: first line} of the family homes `path` imports."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "families":
            modules = [f"families.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            modules = [node.module]
        else:
            continue
        for module in modules:
            parts = module.split(".")
            if parts[0] == "families" and len(parts) > 1 and parts[1] in registry.names():
                found.setdefault(parts[1], node.lineno)
    return found


def family_imports_of_shared_code():
    """[(path, family, line)] of every import of a family outside its home."""
    own_commands = {command: f.name for f in registry.families() for command in f.command_lines}
    offending = []
    for path in python_files():
        if path.startswith(NOT_SHARED):
            continue
        for family, line in imported_families(path).items():
            if family not in (home_of(path), own_commands.get(path)):
                offending.append((path, family, line))
    return sorted(offending)


def test_shared_code_imports_no_family():
    assert family_imports_of_shared_code() == []


@pytest.mark.parametrize("name", registry.names())
def test_a_family_home_imports_no_other_family(name):
    for path in python_files():
        if home_of(path) == name:
            assert set(imported_families(path)) <= {name}, path
