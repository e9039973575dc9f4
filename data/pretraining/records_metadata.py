"""What pretraining records were written with, in a small JSON file beside
their shards, so that a reader refuses settings the records disagree with
(a `--num_predict` or batch size other than the writer's, a model vocabulary
smaller than the records') at set-up rather than training on silently or
failing in a later step.

One file per output name: `--output_file=out/xlnet.tfrecord --output_shards=8`
gives `out/.xlnet.tfrecord.metadata.json` for the eight shards
`out/xlnet.tfrecord-0000k-of-00008`. The leading dot keeps it out of globs over
the shards (`out/xlnet.tfrecord*`), which the original scripts read too. It
holds the model family, the settings a reader must agree with (`settings`:
the writer's flag names) and the records per shard. Records without it (older
versions, the original scripts) are read with the first-record checks alone.
A file an output name owns (`output_names.owns`: a shard of another count, a
temporary file) that its metadata does not list is refused (`check_listed`):
an earlier or interrupted write left it.

Example:
>>> read_metadata("out/xlnet.tfrecord-00003-of-00008")["settings"]["num_predict"]
85
"""

import json
import os
import typing

from absl import logging

from data.pretraining.output_names import METADATA_SUFFIX, metadata_path, owns
from utils.files import atomic_output, new_file_mode, read_json_object

_logged_without = set()
_NAMED = 10  # unlisted files named in an error


class RecordLayoutError(ValueError):
    """A TFRecord whose features or settings do not match what the reader was asked for."""


def remove_metadata(output_files):
    """Removes the metadata of an earlier run, before its shards are replaced."""
    for path in {metadata_path(p) for p in output_files}:
        if os.path.exists(path):
            os.unlink(path)


def write_metadata(output_files, family, settings, records_per_file):
    """Writes the metadata of each output name: `family` ("bert", "xlnet"),
    `settings` (JSON values) and the records of each of its shards that has any."""
    texts = metadata_texts(output_files, family, settings, records_per_file)
    for path, text in texts.items():
        with atomic_output(path) as f:
            os.fchmod(f.fileno(), new_file_mode())  # readable as the shards are
            f.write(text)
    return sorted(texts)


def metadata_texts(output_files, family, settings, records_per_file):
    """{metadata path: its JSON text} of the output names of `output_files`."""
    groups = {}
    for path, count in zip(output_files, records_per_file):
        records = groups.setdefault(metadata_path(path), {})
        if count:
            records[os.path.basename(path)] = int(count)
    return {path: json.dumps({"family": family, "settings": settings, "records": records}, indent=2) + "\n"
            for path, records in groups.items()}


def read_metadata(records_path):
    """The metadata of the output a shard belongs to, or None when there is none."""
    path = metadata_path(records_path)
    if not os.path.exists(path):
        return None
    values = read_json_object(path, RecordLayoutError)
    if not isinstance(values.get("settings"), dict):
        raise RecordLayoutError(f"{path}: no 'settings' object: not pretraining records metadata?")
    return values


def check_listed(files):
    """Raises RecordLayoutError naming the files of `files` that an output
    name with metadata beside them owns but that its metadata does not list
    (empty ones aside: they add no record, and readers skip them)."""
    by_directory, unlisted = {}, {}
    for path in files:
        directory, name = os.path.split(path)
        if not os.path.getsize(path):
            continue
        if directory not in by_directory:
            by_directory[directory] = _listings_in(directory)
        owners = [m for m in by_directory[directory] if owns(m.output, name)]
        if owners and not any(name in m.listed for m in owners):
            unlisted.setdefault(max(owners, key=lambda m: len(m.output)), []).append(path)
    for listing, paths in unlisted.items():
        more = f" and {len(paths) - _NAMED} more" if len(paths) > _NAMED else ""
        raise RecordLayoutError(
            f"{', '.join(paths[:_NAMED])}{more}: not among the {len(listing.listed)} files that "
            f"{listing.path} lists, the last write of {listing.output}: left by an earlier write "
            "(another --output_shards) or an interrupted one; rewrite the output, which removes "
            "them, or leave them out of --input_file")


class _Listing(typing.NamedTuple):
    path: str  # the metadata file
    output: str  # its output name
    listed: frozenset  # the file names it lists


def _listings_in(directory):
    """The `_Listing` of each metadata file in `directory`."""
    listings = []
    for name in sorted(os.listdir(directory or ".")):
        if name.startswith(".") and name.endswith(METADATA_SUFFIX):
            path = os.path.join(directory, name)
            records = read_json_object(path, RecordLayoutError).get("records", {})
            listings.append(_Listing(path, os.path.join(directory, name[1:-len(METADATA_SUFFIX)]),
                                     frozenset(records)))
    return listings


def check_settings(files, family, expected):
    """Raises RecordLayoutError naming both values and the metadata file when
    the records of `files` were written as another `family` or with a setting
    other than `expected` ({setting: (value, the flag or field that asked for
    it)}); settings a metadata file lacks are not checked. Returns the files
    without metadata, logged once each."""
    without = []
    for path in files:
        metadata = read_metadata(path)
        if metadata is None:
            without.append(path)
            continue
        source = metadata_path(path)
        if metadata.get("family", family) != family:
            raise RecordLayoutError(f"{path}: {metadata['family']} pretraining records ({source}), "
                                    f"not {family}")
        settings = metadata["settings"]
        for name, (value, asked_by) in expected.items():
            if name in settings and settings[name] != value:
                raise RecordLayoutError(
                    f"{asked_by}={_flag_value(value)} but {path} was written with "
                    f"{name}={_flag_value(settings[name])} ({source})")
    _log_without(without, "its settings are checked from its first record only")
    return without


def check_vocab_size(files, vocab_size, field, config_source):
    """Raises RecordLayoutError when records were written with a vocabulary
    larger than the model's `field` (`vocab_size`, XLNet's `n_token`) of
    `config_source`: an id past it would fail the embedding gather mid-run.
    Returns the files without metadata, whose ids the caller checks otherwise."""
    without = []
    for path in files:
        metadata = read_metadata(path)
        size = metadata and metadata["settings"].get("vocab_size")
        if size is None:
            without.append(path)
        elif size > vocab_size:
            raise RecordLayoutError(
                f"{path} was written with a vocabulary of {size} ids (0-{size - 1}; "
                f"{metadata_path(path)}) but {config_source} has {field}={vocab_size}")
    _log_without(without, "its token ids are checked in its first records only")
    return without


def _log_without(files, fallback):
    for path in files:
        if (path, fallback) not in _logged_without:
            _logged_without.add((path, fallback))
            logging.info("%s has no metadata (%s; written by an older version?): %s", path,
                         metadata_path(path), fallback)


def _flag_value(value):
    return str(value).lower() if isinstance(value, bool) else value
