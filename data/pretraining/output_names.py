"""The names a pretraining-data writer owns, so that rewriting an output
leaves its new records alone under the glob `<output_file>-*`.

The output name `d/x.tfrecord` owns the file `d/x.tfrecord`, every name
`d/x.tfrecord-*` (its numbered shards `-NNNNN-of-NNNNN`, of any count), its
metadata `d/.x.tfrecord.metadata.json` (`records_metadata`) and the temporary
files of writes of them: `.<file>.<random>.tmp`, hidden, as
`utils.files.atomic_output` names them, or `<file>.<random>.tmp`, as earlier
versions named them (which that glob matched). A writer holding the name's
lock (`writer.locked_outputs`) removes the temporary files of a write that was
killed before it writes, and after it has written the files of an earlier
write that it did not replace: shards of another `--output_shards` and what
the earlier metadata listed (`leftovers`).
"""

import json
import os
import re

METADATA_SUFFIX = ".metadata.json"
_NUMBERED = r"-\d+-of-\d+"
_SHARD_SUFFIX = re.compile(_NUMBERED + "$")
# tempfile's random part: 8 characters of [a-z0-9_].
_RANDOM = r"\.[a-z0-9_]{8}\.tmp"


def output_name(records_path):
    """The `--output_file` a shard was numbered from (the path itself for an unnumbered file)."""
    return _SHARD_SUFFIX.sub("", records_path)


def metadata_path(records_path):
    directory, name = os.path.split(output_name(records_path))
    return os.path.join(directory, f".{name}{METADATA_SUFFIX}")


def owns(name, file_name):
    """Whether `file_name` (a base name) beside the output name `name` is one
    of its records, or an unhidden temporary file of one, as a glob over them
    sees it: the name itself, `<name>-*` or `<name>.<random>.tmp`."""
    base = os.path.basename(name)
    return (file_name == base or file_name.startswith(base + "-")
            or re.fullmatch(re.escape(base) + _RANDOM, file_name) is not None)


def leftovers(output_files, listing=None, read=None):
    """(temporary, earlier) paths of the output names of `output_files`: the
    temporary files of interrupted writes, and the files of an earlier write
    that writing `output_files` does not replace (numbered shards of another
    count; what the earlier metadata lists). Call it before that metadata is
    removed. `listing(directory, prefix)` gives the paths in `directory` whose
    names start with `prefix`, `read(path)` a file's bytes or None; both
    default to the local file system."""
    listing, read = listing or _local_listing, read or _local_read
    outputs = set(output_files)
    temporary, earlier = set(), set()
    for name in sorted({output_name(p) for p in output_files}):
        directory, base = os.path.split(name)
        found = {os.path.basename(p): p for prefix in (base, f".{base}", f"..{base}")
                 for p in listing(directory, prefix)}
        pieces = rf"{re.escape(base)}(?:{_NUMBERED})?|\.{re.escape(base)}\.metadata\.json"
        temporary.update(p for n, p in found.items() if re.fullmatch(rf"\.?(?:{pieces}){_RANDOM}", n))
        numbered = {n for n in found if re.fullmatch(re.escape(base) + _NUMBERED, n)}
        for n in numbered | (_listed(read(metadata_path(name))) & set(found)):
            if found[n] not in outputs:
                earlier.add(found[n])
    return sorted(temporary), sorted(earlier)


def _listed(text):
    """The file names a metadata file's text lists (none when it is absent or unreadable)."""
    try:
        records = json.loads(text.decode("utf-8")).get("records") if text else None
    except (ValueError, AttributeError):
        return set()
    return set(records) if isinstance(records, dict) else set()


def _local_listing(directory, prefix):
    try:
        names = os.listdir(directory or ".")
    except FileNotFoundError:
        return []
    return [os.path.join(directory, n) for n in names if n.startswith(prefix)]


def _local_read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None
