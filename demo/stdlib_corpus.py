"""A pretraining corpus from real English already on every machine: the
docstrings of Python's standard library, read with `ast` (nothing imported).

One document per module, one sentence per line, blank lines between
documents: the input format of `create_pretraining_data.py`.
"""

import ast
import os
import re
import sysconfig

from utils.files import atomic_output

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def _docstrings(path):
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return []
    nodes = [tree] + [n for n in ast.walk(tree)
                      if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))]
    return [d for d in (ast.get_docstring(n) for n in nodes) if d]


def _sentences(docstring):
    """Prose paragraphs only: code examples and tables are left out."""
    for paragraph in docstring.split("\n\n"):
        if ">>>" in paragraph or paragraph.lstrip().startswith(("-", "*", ":", "=")):
            continue
        text = " ".join(paragraph.split())
        for sentence in _SENTENCE_END.split(text):
            if len(sentence.split()) >= 4:
                yield sentence


def write_corpus(path, max_bytes=3_000_000):
    """Writes the corpus; returns (documents, bytes written)."""
    stdlib = sysconfig.get_paths()["stdlib"]
    documents = written = 0
    with atomic_output(path) as out:
        for directory, subdirs, files in sorted(os.walk(stdlib)):
            subdirs[:] = sorted(d for d in subdirs if d not in ("test", "tests", "idlelib", "site-packages"))
            for name in sorted(files):
                if not name.endswith(".py") or written >= max_bytes:
                    continue
                lines = [s for d in _docstrings(os.path.join(directory, name)) for s in _sentences(d)]
                if len(lines) < 2:
                    continue
                block = "\n".join(lines) + "\n\n"
                out.write(block)
                written += len(block.encode("utf-8"))
                documents += 1
    return documents, written
