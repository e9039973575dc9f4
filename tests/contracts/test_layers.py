"""The tree is layered, each layer importing only those below it: the
contracts at the bottom (found by every layer), shared layers and data, the
checkpoints, the training engine, the export, the task homes, the family
homes, and the applications at the top. A home above is reached only through
a registry's lazy lookup (a module path in a string), which no import shows."""

from tests.source_imports import applications, imported_modules, part_of, python_files

LAYERS = (("utils",), ("contracts",), ("modeling",), ("data",), ("checkpoints",), ("training",), ("export",),
          ("tasks",), ("families",), applications())
RANK = {part: rank for rank, parts in enumerate(LAYERS) for part in parts}
ROOT_SCRIPTS = {path[:-3] for path in python_files() if "/" not in path}


def layer_of(module):
    """The part of the tree an imported `module` is in, None outside it (a library)."""
    top = module.split(".")[0]
    if top in RANK:
        return top
    return "(root)" if top in ROOT_SCRIPTS else None


def upward_imports():
    """[(path, module, line)] of every import of a layer above the importing file's."""
    return sorted((path, module, line) for path in python_files() if not path.startswith("tests/")
                  for module, line in imported_modules(path).items()
                  if layer_of(module) and RANK[layer_of(module)] > RANK[part_of(path)])


def test_every_part_of_the_tree_has_a_layer():
    assert {part_of(path) for path in python_files()} - {"tests"} <= set(RANK)


def test_no_import_runs_from_a_lower_layer_to_a_higher_one():
    assert upward_imports() == []
