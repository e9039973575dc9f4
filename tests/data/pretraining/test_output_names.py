"""A pretraining-data writer owns its output name (`data/pretraining/output_names.py`):
rewriting it with another --output_shards, or after a write was killed, leaves
exactly the new shards under the glob `<output_file>-*`; and every family's
reader refuses files beside a metadata file that does not list them, naming them."""

import glob
import os
import re
import shutil
import types

import pytest

from data.pretraining.dataset import pretraining_dataset
from data.pretraining.records_metadata import RecordLayoutError, metadata_path, read_metadata
from data.pretraining.writer import output_paths, write_pretraining_data
from families.bert.pretraining.chunks import ChunkProcessor
from families.bert.pretraining.config import MaskingOptions, PretrainingDataConfig
from families.elmo.pretraining.dataset import elmo_pretraining_dataset
from families.gpt.pretraining.dataset import gpt_pretraining_dataset
from families.xlnet.pretraining.dataset import xlnet_pretraining_dataset
from pack_pretraining_data import pack_pretraining_files
from tests.conftest import FIXTURES
from utils.files import atomic_output

CORPUS = os.path.join(FIXTURES, "pretraining_corpus.txt")
CONFIG = PretrainingDataConfig(max_seq_length=64, dupe_factor=1,
                               masking=MaskingOptions(max_predictions_per_seq=10))
# Temporary files of killed writes: as earlier versions named them (the shard
# glob matches them) and as they are named now (hidden), of shards and metadata.
KILLED = ("out.tfrecord-00000-of-00002.k3j9x_2a.tmp", "out.tfrecord.q8w7e6r5.tmp",
          ".out.tfrecord-00001-of-00002.abcdefgh.tmp", "..out.tfrecord.metadata.json.zz11yy22.tmp")
# Names the output does not own: kept.
OTHERS = ("out.tfrecord.notes.txt", "out.tfrecordX-00000-of-00002", ".out.tfrecordX.metadata.json.abcdefgh.tmp")


def write(directory, shards, vocab_file):
    paths = output_paths(str(directory / "out.tfrecord"), shards)
    counts = write_pretraining_data(CORPUS, paths, vocab_file, CONFIG, log_every_seconds=1e9,
                                    processor_class=ChunkProcessor)
    assert all(counts["records_per_shard"])
    return paths, counts


def test_a_rewrite_leaves_only_its_own_shards(tmp_path, uncased_vocab_file):
    """Two shards, then three: the two are gone, and so are temporary files of
    killed writes; the glob reads the new records only."""
    write(tmp_path, 2, uncased_vocab_file)
    for name in KILLED + OTHERS:
        (tmp_path / name).write_bytes(b"partial")
    paths, counts = write(tmp_path, 3, uncased_vocab_file)
    assert sorted(glob.glob(str(tmp_path / "out.tfrecord-*"))) == paths
    assert sorted(os.listdir(tmp_path)) == sorted([".out.tfrecord.metadata.json", *OTHERS,
                                                   *map(os.path.basename, paths)])
    dataset = pretraining_dataset(str(tmp_path / "out.tfrecord-*"), 8, 64, 10)
    assert sum(len(batch["input_ids"]) for batch in dataset) == counts["instances"]
    # And back to one unnumbered file: the earlier metadata listed the three.
    single, _ = write(tmp_path, 1, uncased_vocab_file)
    assert sorted(os.listdir(tmp_path)) == sorted([".out.tfrecord.metadata.json", *OTHERS, "out.tfrecord"])


def test_temporary_files_never_match_the_shard_glob(tmp_path):
    shard = str(tmp_path / "out.tfrecord-00000-of-00002")
    with atomic_output(shard, "wb") as f:
        f.write(b"records")
        assert glob.glob(str(tmp_path / "out.tfrecord-*")) == []
        assert glob.glob(str(tmp_path / "out.tfrecord*")) == []
    assert glob.glob(str(tmp_path / "out.tfrecord-*")) == [shard]


def test_a_packed_output_owns_its_name_too(tmp_path, uncased_vocab_file):
    paths, _ = write(tmp_path / "in", 2, uncased_vocab_file)
    out = tmp_path / "out"
    write(out, 2, uncased_vocab_file)  # shards of an earlier write of the packed output's name
    (out / KILLED[0]).write_bytes(b"partial")
    pack_pretraining_files(",".join(paths), str(out / "out.tfrecord"), 64, 10)
    assert sorted(os.listdir(out)) == [".out.tfrecord.metadata.json", "out.tfrecord"]


READERS = {
    "bert": lambda files: pretraining_dataset(files, 8, 64, 10),
    "xlnet": lambda files: xlnet_pretraining_dataset(files, 4, 32, 16, 16, 6),
    "gpt": lambda files: gpt_pretraining_dataset(files, 4, 64),
    "elmo": lambda files: elmo_pretraining_dataset(files, 4, 20, types.SimpleNamespace(sha1="", path="v")),
}


@pytest.fixture(scope="module")
def stale(tmp_path_factory, uncased_vocab_file):
    """Three shards with their metadata, and beside them a shard of an earlier
    two-shard write and an earlier version's temporary file."""
    directory = tmp_path_factory.mktemp("stale")
    paths, _ = write(directory, 3, uncased_vocab_file)
    extra = [str(directory / "out.tfrecord-00000-of-00002"), str(directory / KILLED[0])]
    for path in extra:
        shutil.copy(paths[0], path)
    return str(directory / "out.tfrecord-*"), extra


@pytest.mark.parametrize("family", sorted(READERS))
def test_every_reader_refuses_files_the_metadata_does_not_list(stale, family):
    pattern, extra = stale
    output = pattern[:-len("-*")]
    with pytest.raises(RecordLayoutError, match="^" + re.escape(
            f"{extra[0]}, {extra[1]}: not among the 3 files that {metadata_path(output)} lists, the last "
            f"write of {output}: left by an earlier write (another --output_shards) or an interrupted one")):
        READERS[family](pattern)
    assert len(read_metadata(extra[0])["records"]) == 3
