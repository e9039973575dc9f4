"""`create_xlnet_pretraining_data.py`: records readable by the original
pipeline's layout, the same output for any number of workers, whole batches
per shard, no empty shards, and bad input named by file and line."""

import logging
import os
import sys

import numpy as np
import pytest

from families.xlnet.pretraining import features as X
from data.pretraining.corpus_reader import CorpusError
from data.pretraining.record_statistics import read_examples
from data.pretraining.records_metadata import read_metadata
from data.pretraining.writer import output_paths, shard_lines, write_pretraining_data
from families.xlnet.pretraining.chunks import XLNetChunkProcessor, summary_lines
from families.xlnet.pretraining.config import XLNetDataConfig
from families.xlnet.pretraining.dataset import xlnet_pretraining_dataset
from tests import warm_python
from tests.conftest import ROOT
from tests.families.xlnet.corpus import build_spiece, write_corpus

CONFIG = XLNetDataConfig(seq_len=32, reuse_len=16, bsz_per_host=4, num_predict=6)


@pytest.fixture(scope="module")
def spiece(tmp_path_factory):
    return build_spiece(tmp_path_factory.mktemp("xlnet_writer_spm"))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_corpus(tmp_path_factory.mktemp("xlnet_writer_corpus") / "corpus.txt", 120)


def generate(directory, corpus, spiece, shards=1, workers=1, chunk=30, config=CONFIG):
    paths = output_paths(str(directory / "xlnet.tfrecord"), shards)
    counts = write_pretraining_data(corpus, paths, spiece, config, num_workers=workers,
                                    documents_per_chunk=chunk, processor_class=XLNetChunkProcessor,
                                    log_every_seconds=1e9)
    return paths, counts


def test_records_have_the_original_layout_and_counts(tmp_path, corpus, spiece):
    paths, counts = generate(tmp_path, corpus, spiece)
    examples = read_examples(paths)
    assert set(examples) == set(X.feature_layout(32))
    assert examples[X.INPUT].shape == examples[X.TARGET].shape == (counts["instances"], 32)
    assert counts["instances"] % 4 == 0 and counts["documents"] == 120
    assert (examples[X.IS_MASKED].sum(axis=1) == 6).all()
    np.testing.assert_array_equal(examples[X.INPUT][:, -3:][:, 1:], [[4, 3]] * counts["instances"])
    assert set(np.unique(examples[X.SEG_ID])) == {0, 1, 2}
    assert set(np.unique(examples[X.LABEL])) == {0, 1}
    assert counts["targets"] == 6 * counts["instances"]
    assert any(line.startswith(f"records {counts['instances']}") for line in summary_lines(counts))


def test_same_output_for_any_number_of_workers_and_whole_batches_per_shard(tmp_path, corpus, spiece):
    one, _ = generate(tmp_path / "one", corpus, spiece, shards=2)
    two, counts = generate(tmp_path / "two", corpus, spiece, shards=2, workers=2)
    for a, b in zip(one, two):
        assert open(a, "rb").read() == open(b, "rb").read()
    # Chunks of 30 documents go whole to shards 0, 1, 0, 1: batches stay in stream order.
    per_shard = [read_examples([p])[X.INPUT] for p in two]
    assert len(per_shard[0]) % 4 == 0 and len(per_shard[1]) % 4 == 0
    assert len(per_shard[0]) + len(per_shard[1]) == counts["instances"]
    for inputs in per_shard:
        batches = inputs.reshape(-1, 4, 32)
        continued = (batches[1:, :, :16] != batches[:-1, :, :16]).any(axis=2)
        assert continued.all()  # each row moves on by reuse_len tokens


def test_shards_without_records_are_not_written_and_readers_skip_empty_ones(tmp_path, corpus, spiece, caplog):
    stale = tmp_path / "xlnet.tfrecord-00003-of-00004"
    stale.write_bytes(b"an earlier run's shard")
    paths, counts = generate(tmp_path, corpus, spiece, shards=4, chunk=2000)  # one chunk: one shard
    assert counts["records_per_shard"] == [counts["instances"], 0, 0, 0]
    assert sorted(os.listdir(tmp_path)) == [".xlnet.tfrecord.metadata.json", os.path.basename(paths[0])]
    assert read_metadata(paths[2])["records"] == {os.path.basename(paths[0]): counts["instances"]}
    lines = shard_lines(paths, counts["records_per_shard"])
    assert lines[:2] == [f"{paths[0]}: {counts['instances']} records", f"{paths[1]}: no records, not written"]
    assert lines[-1] == "3 of 4 shards got no records and were not written"

    open(paths[2], "wb").close()  # an empty shard, as older versions wrote them
    with caplog.at_level(logging.WARNING):
        dataset = xlnet_pretraining_dataset(f"{tmp_path}/xlnet.tfrecord-*", 4, 32, 16, 8, 6)
        assert sum(len(batch["input_k"]) for batch in dataset) == counts["instances"]
    assert f"{paths[2]}: no records, skipped" in caplog.text


def test_invalid_utf8_is_an_error_naming_file_and_line(tmp_path, corpus, spiece):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(open(corpus, "rb").read()[:200] + b"\nok line\nbad \xff byte\n")
    with pytest.raises(CorpusError, match=r"bad\.txt:\d+: invalid UTF-8"):
        generate(tmp_path, str(bad), spiece)
    assert sorted(os.listdir(tmp_path)) == ["bad.txt"]


def test_a_corpus_too_short_for_one_batch_is_an_error_and_writes_nothing(tmp_path, spiece):
    short = tmp_path / "short.txt"
    short.write_text("One sentence.\n\nAnother document.\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"no records from .*short\.txt.*bsz_per_host"):
        generate(tmp_path, str(short), spiece)
    assert sorted(os.listdir(tmp_path)) == ["short.txt"]


def test_settings_that_cannot_work_are_refused():
    with pytest.raises(ValueError, match="even bsz_per_host"):
        XLNetDataConfig(bsz_per_host=3, bi_data=True)
    with pytest.raises(ValueError, match="num_predict 40 does not fit"):
        XLNetDataConfig(seq_len=32, reuse_len=16, num_predict=40)


def test_command_line(tmp_path, corpus, spiece):
    def run(*flags):
        return warm_python.run(
            [sys.executable, os.path.join(ROOT, "create_xlnet_pretraining_data.py"), f"--sp_path={spiece}",
             "--seq_len=32", "--reuse_len=16", "--bsz_per_host=4", "--num_predict=6", *flags],
            capture_output=True, text=True, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}, timeout=300)
    done = run(f"--input_file={corpus}", f"--output_file={tmp_path}/out.tfrecord", "--output_shards=2")
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"{tmp_path}/out.tfrecord-00000-of-00002: " in done.stderr
    assert f"{tmp_path}/out.tfrecord-00001-of-00002: no records, not written" in done.stderr
    assert "--documents_per_chunk=2000" in done.stderr
    assert not os.path.exists(f"{tmp_path}/out.tfrecord-00001-of-00002")
    done = run(f"--input_file={corpus}", f"--output_file={tmp_path}/out.tfrecord", "--output_shards=2",
               "--documents_per_chunk=60")
    assert done.returncode == 0 and "not written" not in done.stderr
    assert os.path.exists(f"{tmp_path}/out.tfrecord-00001-of-00002")
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    done = run(f"--input_file={empty}", f"--output_file={tmp_path}/x.tfrecord")
    assert done.returncode != 0 and "empty.txt" in done.stderr and not os.path.exists(f"{tmp_path}/x.tfrecord")


def test_a_missing_or_truncated_spiece_model_is_an_error_line(tmp_path, corpus, spiece):
    truncated = tmp_path / "truncated.model"
    truncated.write_bytes(open(spiece, "rb").read()[:1000])
    for model in (tmp_path / "absent.model", truncated):
        done = warm_python.run(
            [sys.executable, os.path.join(ROOT, "create_xlnet_pretraining_data.py"), f"--sp_path={model}",
             f"--input_file={corpus}", f"--output_file={tmp_path}/out.tfrecord"],
            capture_output=True, text=True, timeout=300)
        assert done.returncode != 0
        assert f"error: {model}: cannot load the SentencePiece model" in done.stderr, done.stderr[-2000:]
        assert "Traceback" not in done.stderr
    assert sorted(os.listdir(tmp_path)) == ["truncated.model"]
