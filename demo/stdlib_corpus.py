"""A pretraining corpus from real English already on every machine: the
docstrings of Python's standard library, read with `ast` (nothing imported).

One document per docstring of at least two sentences, one sentence per line,
blank lines between documents: the input format of `create_pretraining_data.py`.
Docstring-sized documents give next-sentence pairs of sentences that explain one
function or class, and a few thousand documents rather than a few hundred modules.
A fixed fifth of the modules is held out of the corpus; the labelled demo set is
made from those, so fine-tuning is scored on text that pretraining never saw.
"""

import ast
import collections
import os
import re
import sysconfig
import zlib

from utils.files import atomic_output

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_SKIPPED_DIRS = ("test", "tests", "idlelib", "site-packages", "dist-packages", "__pycache__")


def _docstrings(path):
    """The module's docstring, then its functions' and classes' in breadth-first order."""
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return []
    nodes = [tree] + [n for n in _statements(tree)
                      if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))]
    return [d for d in (ast.get_docstring(n) for n in nodes) if d]


def _statements(tree):
    """The statements of `ast.walk`'s order: expressions hold no definitions, and
    not walking them brought the main job's corpus stage from 7 s to 2 s."""
    queue = collections.deque([tree])
    while queue:
        node = queue.popleft()
        children = [c for c in ast.iter_child_nodes(node)
                    if isinstance(c, (ast.stmt, ast.excepthandler, ast.match_case))]
        queue.extend(children)
        yield from children


def _sentences(docstring):
    """Prose paragraphs only: code examples and tables are left out."""
    for paragraph in docstring.split("\n\n"):
        if ">>>" in paragraph or paragraph.lstrip().startswith(("-", "*", ":", "=")):
            continue
        text = " ".join(paragraph.split())
        for sentence in _SENTENCE_END.split(text):
            if len(sentence.split()) >= 4:
                yield sentence


def documents(modules=None):
    """(module path relative to the standard library, [docstrings as lists of sentences]), sorted;
    only of the modules for which `modules(path)` is true, if given."""
    stdlib = sysconfig.get_paths()["stdlib"]
    for directory, subdirs, files in os.walk(stdlib):  # top-down, so the pruning takes effect
        subdirs[:] = sorted(d for d in subdirs if d not in _SKIPPED_DIRS)
        for name in sorted(files):
            path = os.path.join(directory, name)
            if name.endswith(".py") and (modules is None or modules(os.path.relpath(path, stdlib))):
                docstrings = [list(_sentences(d)) for d in _docstrings(path)]
                docstrings = [d for d in docstrings if d]
                if docstrings:
                    yield os.path.relpath(path, stdlib), docstrings


def held_out(module):
    """True for the fixed fifth of modules kept out of the pretraining corpus."""
    return zlib.crc32(module.encode("utf-8")) % 5 == 0


def write_corpus(path, max_modules=None, held=False):
    """Writes the docstrings of the modules not held out (with `held`: of the held-out ones,
    the text pretraining is scored on), of the first `max_modules` of them if given;
    returns (modules, documents, bytes written)."""
    modules = count = written = 0
    with atomic_output(path) as out:
        for module, docstrings in documents(lambda module: held_out(module) == held):
            docstrings = [d for d in docstrings if len(d) >= 2]
            if not docstrings:
                continue
            if modules == max_modules:
                break
            for sentences in docstrings:
                block = "\n".join(sentences) + "\n\n"
                out.write(block)
                written += len(block.encode("utf-8"))
            modules += 1
            count += len(docstrings)
    return modules, count, written
