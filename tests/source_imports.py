"""What the tree's Python files import, read from their source (no module is
imported): the homes tests and the layering test walk it."""

import ast
import os
import subprocess

from tests.conftest import ROOT


def python_files():
    """Every Python file git knows of (tracked, or new and not ignored)."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.py"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [path for path in listed if os.path.exists(os.path.join(ROOT, path))]


def imported_modules(path):
    """{module: first line} of every absolute import in `path`, module level or
    not; `from package import name` counts as `package.name`, which is the
    module where `name` is one."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            modules = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for module in modules:
            found.setdefault(module, node.lineno)
    return found


def home_of(path, package):
    """The home under `package` (`families`, `tasks`) holding `path`, or None."""
    parts = path.split("/")
    return parts[1] if parts[0] == package and len(parts) > 2 else None


def part_of(path):
    """The top-level part of the tree holding `path` ("(root)" for a script at the root)."""
    return path.split("/")[0] if "/" in path else "(root)"


def applications():
    """The parts of the tree that use the garden rather than being used by it: the
    scripts at the root (runners, data command lines, main.py, compare.py), the
    main job's and the comparison's shared halves, benchmarks and scripts."""
    return ("(root)", "demo", "comparisons", "benchmarks", "scripts")


def is_application_module(module):
    """Whether an imported `module` belongs to an application (a root script by its name)."""
    top = module.split(".")[0]
    return top in applications() or os.path.isfile(os.path.join(ROOT, f"{top}.py"))
