"""Where an export may write: `--export_dir` names a SavedModel folder of its
own, or a TF Serving base path to add a version to, and never costs a folder
that holds anything else.

TF Serving serves `<base>/<version>/saved_model.pb`, the versions being
folders named by integers (the highest served by default). `--export_dir` is
- a folder that does not exist yet, or an empty one: the SavedModel goes
  there (`/models/mrpc/1`);
- an earlier export of this project (its `saved_model.pb` and the marker
  `assets.extra/bert_garden_export.json` every export writes): replaced;
- a base path, a folder holding numbered version folders (a README beside
  them is fine): the SavedModel becomes its next version, `<base>/<highest + 1>`;
- anything else (a run's output_dir, a SavedModel another program wrote, a
  folder of other files, a file): refused, naming what is there; nothing is
  written or deleted. So is a folder holding the weights being exported.

Example:
>>> saved_model_dir("/models/mrpc")  # holds 1/ and 2/
'/models/mrpc/3'
"""

import json
import os
import re

MARKER = os.path.join("assets.extra", "bert_garden_export.json")
_SHOWN = 5  # entries of a refused folder named in the message
_VERSION = re.compile(r"[0-9]+")


class ExportDirError(ValueError):
    """An export directory that holds something other than an export to replace."""


def write_marker(saved_model, facts=None):
    """Marks the SavedModel folder `saved_model` as this project's export, which
    a later export to the same place may replace; `facts` {name: value} are
    recorded beside the mark (a task export's `export_precision`)."""
    path = os.path.join(saved_model, MARKER)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps({"exported_by": "bert-garden", **(facts or {})}) + "\n")


def is_export(path):
    """Whether `path` is a SavedModel folder this project wrote."""
    return all(os.path.isfile(os.path.join(path, name)) for name in ("saved_model.pb", MARKER))


def versions(path):
    """The numbered version folders in `path` (a TF Serving base path), as ints."""
    return sorted(int(name) for name in _entries(path)
                  if _VERSION.fullmatch(name) and os.path.isdir(os.path.join(path, name)))


def saved_model_dir(export_dir, keep=()):
    """The folder a SavedModel for `export_dir` goes to: itself, or the next
    version of a TF Serving base path. Raises ExportDirError when it holds
    anything else, or holds one of the paths `keep` (the weights exported)."""
    export_dir = os.path.realpath(export_dir)
    if os.path.isdir(export_dir) and not is_export(export_dir) and versions(export_dir):
        return os.path.join(export_dir, str(versions(export_dir)[-1] + 1))
    check_replaceable(export_dir, keep)
    return export_dir


def check_replaceable(path, keep=()):
    """Raises ExportDirError unless `path` is absent, an empty folder or an
    earlier export (and holds none of the paths `keep`)."""
    path = os.path.realpath(path)
    _check_keeps(path, keep)
    if not os.path.lexists(path) or is_export(path):
        return
    if not os.path.isdir(path):
        raise ExportDirError(f"export directory {path} is a file: nothing written; give a folder")
    names = _entries(path)
    if names:
        raise ExportDirError(f"export directory {path} {_holds(path, names)}: nothing written or "
                             "deleted; give a new folder, an earlier export to replace, or a TF "
                             "Serving base path (numbered version folders) to add a version to")


def check_pair_dir(export_dir, names, keep=()):
    """Raises ExportDirError unless `export_dir` is absent, empty or holds only
    earlier exports named `names` (the TF Hub pair's `preprocessor/`,
    `encoder/`, ...), each of which `check_replaceable` accepts."""
    export_dir = os.path.realpath(export_dir)
    _check_keeps(export_dir, keep)
    if os.path.lexists(export_dir) and not os.path.isdir(export_dir):
        raise ExportDirError(f"export directory {export_dir} is a file: nothing written; give a "
                             "folder")
    others = [name for name in _entries(export_dir) if name not in names]
    if others:
        raise ExportDirError(
            f"export directory {export_dir} holds {_listed(others)}, not only the exports "
            f"{', '.join(names)}: nothing written or deleted; give a new or empty folder, or one "
            "an earlier export of the pair went to")
    for name in names:
        check_replaceable(os.path.join(export_dir, name), keep)


def _check_keeps(path, keep):
    for kept in keep:
        kept = os.path.realpath(kept)
        if kept == path or kept.startswith(path.rstrip(os.sep) + os.sep):
            raise ExportDirError(f"export directory {path} {'is' if kept == path else 'holds'} "
                                 f"{kept}, the weights being exported: nothing written or "
                                 "deleted; export to another folder")


def _entries(path):
    try:
        return sorted(os.listdir(path))
    except (FileNotFoundError, NotADirectoryError):
        return []


def _holds(path, names):
    if os.path.isfile(os.path.join(path, "saved_model.pb")):
        return (f"holds a SavedModel without this project's export marker {MARKER} (another "
                "program's, or an older version's: delete it to replace it)")
    return f"holds {_listed(names)}, not an export"


def _listed(names):
    shown = ", ".join(names[:_SHOWN]) + (", ..." if len(names) > _SHOWN else "")
    return f"{len(names)} entr{'y' if len(names) == 1 else 'ies'} ({shown})"
