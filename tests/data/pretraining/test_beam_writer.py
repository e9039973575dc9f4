"""The pretraining-data writers as Apache Beam pipelines write the local
writer's shards byte for byte (so the same multiset of records, shard by
shard) and its metadata, on the DirectRunner in process and in worker
processes and on Beam's portable runner (embedded job server, LOOPBACK
workers); their metrics are the local writer's counts; a line that is not
valid UTF-8 is counted and listed with its file and line and never stops the
job. Chunks are made small (documents_per_chunk, max_chunk_chars) so that
blocks span files, are cut into parts, and readers start from marks inside
files."""

import glob
import json
import os
import sys

import pytest

from tests import warm_python
from tests.conftest import FIXTURES, ROOT
from tests.families.gpt.kit import ENCODER_FILE
from tests.families.xlnet.corpus import build_spiece, write_corpus

beam = pytest.importorskip("apache_beam")

from data.pretraining import corpus_index  # noqa: E402
from data.pretraining.beam_writer import write_pretraining_data_beam  # noqa: E402
from data.pretraining.command_line import pipeline_args  # noqa: E402
from data.pretraining.corpus_reader import CorpusError  # noqa: E402
from data.pretraining.records_metadata import metadata_path  # noqa: E402
from data.pretraining.writer import output_paths, write_pretraining_data  # noqa: E402
from families.bert.pretraining.chunks import ChunkProcessor  # noqa: E402
from families.bert.pretraining.config import MaskingOptions, PretrainingDataConfig  # noqa: E402
from families.gpt.pretraining.chunks import GPTChunkProcessor  # noqa: E402
from families.gpt.pretraining.config import GPTDataConfig  # noqa: E402
from families.xlnet.pretraining.chunks import XLNetChunkProcessor  # noqa: E402
from families.xlnet.pretraining.config import XLNetDataConfig  # noqa: E402

IN_PROCESS = ["--runner=DirectRunner", "--direct_running_mode=in_memory"]
PORTABLE = ["--runner=PortableRunner", "--job_endpoint=embed", "--environment_type=LOOPBACK"]
BERT = PretrainingDataConfig(max_seq_length=64, dupe_factor=2, masking=MaskingOptions(
    max_predictions_per_seq=10, do_whole_word_mask=True, max_ngram_size=2))
XLNET = XLNetDataConfig(seq_len=32, reuse_len=16, bsz_per_host=4, num_predict=6)
BAD_LINE = b"The dog \xff\xfebarks at night.\n"


@pytest.fixture(autouse=True)
def marks_every_few_documents(monkeypatch):
    """Readers then start in the middle of files (each file's index says how far apart its marks are)."""
    monkeypatch.setattr(corpus_index, "MARK_EVERY", 4)


@pytest.fixture(scope="module")
def spiece(tmp_path_factory):
    return build_spiece(tmp_path_factory.mktemp("beam_spm"))


@pytest.fixture(scope="module")
def bert_corpus(tmp_path_factory):
    """Three files, the last with a line that is not valid UTF-8 (line 2) in a document of three lines."""
    directory = tmp_path_factory.mktemp("beam_bert_corpus")
    bad = directory / "c_bad.txt"
    bad.write_bytes(b"A first sentence here.\n" + BAD_LINE + b"And the last one.\n\nAnother document.\n")
    return ",".join([os.path.join(FIXTURES, "pretraining_corpus.txt"), os.path.join(FIXTURES, "sentences.txt"),
                     str(bad)])


@pytest.fixture(scope="module")
def xlnet_corpus(tmp_path_factory):
    directory = tmp_path_factory.mktemp("beam_xlnet_corpus")
    return [write_corpus(directory / "a.txt", 70, seed=1), write_corpus(directory / "b.txt", 50, seed=2)]


def write_both(tmp_path, corpus, vocab, config, processor_class, args, shards=3, do_lower_case=True,
               documents_per_chunk=5, max_chunk_chars=600):
    """(local shards, Beam shards, local counts, Beam counts)."""
    paths = {name: output_paths(str(tmp_path / name / "out.tfrecord"), shards) for name in ("local", "beam")}
    local = write_pretraining_data(corpus, paths["local"], vocab, config, do_lower_case, 1, documents_per_chunk,
                                   log_every_seconds=1e9, processor_class=processor_class,
                                   max_chunk_chars=max_chunk_chars)
    counts = write_pretraining_data_beam(corpus, paths["beam"], vocab, config, do_lower_case, documents_per_chunk,
                                         processor_class=processor_class, pipeline_args=args,
                                         max_chunk_chars=max_chunk_chars)
    return paths["local"], paths["beam"], local, counts


def assert_same_output(local, beam_paths):
    for ours, theirs in zip(local, beam_paths):
        assert os.path.exists(ours) == os.path.exists(theirs), ours
        if os.path.exists(ours):
            assert open(ours, "rb").read() == open(theirs, "rb").read(), theirs
    assert any(os.path.exists(p) for p in local)
    metadata = [json.load(open(metadata_path(p[0]))) for p in (local, beam_paths)]
    assert metadata[0] == metadata[1]


def same_counts(local, beam_counts):
    drop = {"seconds"}
    return ({k: v for k, v in local.items() if v and k not in drop}
            == {k: v for k, v in beam_counts.items() if v and k not in drop})


def test_bert_in_process_same_shards_counts_and_bad_line_report(tmp_path, uncased_vocab_file, bert_corpus):
    local, beam_paths, local_counts, counts = write_both(tmp_path, bert_corpus, uncased_vocab_file, BERT,
                                                         ChunkProcessor, IN_PROCESS)
    assert_same_output(local, beam_paths)
    assert same_counts(local_counts, counts)
    assert counts["invalid_utf8_lines"] == 1 and counts["files"] == 3 and counts["instances"] > 30
    report = open(tmp_path / "beam" / ".out.tfrecord.bad_lines.txt").read()
    assert report == f"{bert_corpus.split(',')[-1]}:2: invalid UTF-8 (invalid start byte), bad bytes replaced\n"
    assert not [p for p in os.listdir(tmp_path / "beam") if ".beam-" in p]  # temporary folder removed


def test_xlnet_portable_runner_same_shards_and_stale_shards_removed(tmp_path, spiece, xlnet_corpus):
    # Four blocks of 30 documents, each cut into parts of about 2,000 characters, go whole to
    # shards (block + part) % 8: the last shards get none.
    stale = output_paths(str(tmp_path / "beam" / "out.tfrecord"), 8)[7]
    os.makedirs(os.path.dirname(stale))
    open(stale, "wb").write(b"an earlier run's shard")
    local, beam_paths, local_counts, counts = write_both(
        tmp_path, ",".join(xlnet_corpus), spiece, XLNET, XLNetChunkProcessor, PORTABLE, shards=8,
        do_lower_case=False, documents_per_chunk=30, max_chunk_chars=2000)
    assert not os.path.exists(stale) and not os.path.exists(local[7])
    assert_same_output(local, beam_paths)
    assert same_counts(local_counts, counts) and counts["documents"] == 120


def test_a_rewrite_on_beam_leaves_only_its_own_shards(tmp_path, uncased_vocab_file, bert_corpus):
    """Two shards written locally, a killed write's temporary files (as earlier
    versions named them, which the shard glob matched), then three on Beam:
    the glob finds the three, the metadata lists them."""
    earlier = output_paths(str(tmp_path / "out.tfrecord"), 2)
    write_pretraining_data(bert_corpus, earlier, uncased_vocab_file, BERT, documents_per_chunk=5,
                           processor_class=ChunkProcessor, log_every_seconds=1e9)
    killed = [tmp_path / "out.tfrecord-00001-of-00002.k3j9x_2a.tmp", tmp_path / ".out.tfrecord.abcdefgh.tmp"]
    for path in killed:
        path.write_bytes(b"partial")
    paths = output_paths(str(tmp_path / "out.tfrecord"), 3)
    counts = write_pretraining_data_beam(bert_corpus, paths, uncased_vocab_file, BERT, documents_per_chunk=5,
                                         processor_class=ChunkProcessor, pipeline_args=IN_PROCESS)
    assert all(counts["records_per_shard"])
    assert sorted(glob.glob(str(tmp_path / "out.tfrecord-*"))) == paths
    assert not any(path.exists() for path in killed)
    assert sorted(json.load(open(metadata_path(paths[0])))["records"]) == [os.path.basename(p) for p in paths]


def test_gpt_in_process_same_shards(tmp_path, xlnet_corpus):
    """A family written to the chunk-processor contract runs on both writers unchanged."""
    local, beam_paths, local_counts, counts = write_both(
        tmp_path, xlnet_corpus, ENCODER_FILE, GPTDataConfig(max_seq_length=32, original_tokenizer=True),
        GPTChunkProcessor, IN_PROCESS, documents_per_chunk=30, max_chunk_chars=2000)
    assert_same_output(local, beam_paths)
    assert same_counts(local_counts, counts) and counts["documents"] == 120


def test_xlnet_bad_line_is_skipped_listed_and_the_rest_written(tmp_path, spiece, xlnet_corpus):
    # XLNet's local writer stops at the line, as the original does; the pipeline
    # leaves it out and writes what the local writer writes without it.
    clean = open(xlnet_corpus[1], "rb").read()
    lines = clean.split(b"\n")
    assert lines[0] and lines[1]  # inside a document: leaving it out keeps the documents
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\n".join(lines[:1] + [BAD_LINE.rstrip(b"\n")] + lines[1:]))
    with pytest.raises(CorpusError, match=rf"{bad}:2: invalid UTF-8"):
        write_pretraining_data(f"{xlnet_corpus[0]},{bad}", [str(tmp_path / "x.tfrecord")], spiece, XLNET,
                               processor_class=XLNetChunkProcessor)
    local, beam_paths, local_counts, counts = write_both(
        tmp_path, [xlnet_corpus[0], xlnet_corpus[1]], spiece, XLNET, XLNetChunkProcessor, IN_PROCESS,
        do_lower_case=False, documents_per_chunk=30)
    beam_bad = output_paths(str(tmp_path / "beam_bad" / "out.tfrecord"), 3)
    bad_counts = write_pretraining_data_beam(f"{xlnet_corpus[0]},{bad}", beam_bad, spiece, XLNET, False, 30,
                                             processor_class=XLNetChunkProcessor, pipeline_args=IN_PROCESS,
                                             max_chunk_chars=600)
    assert_same_output(local, beam_bad)
    assert bad_counts["skipped_lines"] == bad_counts["invalid_utf8_lines"] == 1
    assert bad_counts["lines"] == local_counts["lines"] + 1
    report = open(tmp_path / "beam_bad" / ".out.tfrecord.bad_lines.txt").read()
    assert report == f"{bad}:2: invalid UTF-8 (invalid start byte), line skipped\n"


def test_a_corpus_without_records_is_an_error_and_leaves_the_earlier_output(tmp_path, uncased_vocab_file):
    corpus = tmp_path / "blank.txt"
    corpus.write_text("\n  \n\x00\x01\n\n")
    earlier = tmp_path / "out" / "out.tfrecord"
    earlier.parent.mkdir()
    earlier.write_bytes(b"earlier")
    with pytest.raises(CorpusError, match=r"no documents in .*blank\.txt.*\(4 lines read\); nothing written"):
        write_pretraining_data_beam(str(corpus), [str(earlier)], uncased_vocab_file, BERT,
                                    processor_class=ChunkProcessor, pipeline_args=IN_PROCESS)
    assert os.listdir(earlier.parent) == ["out.tfrecord"] and earlier.read_bytes() == b"earlier"


def test_command_line_with_the_direct_runner_in_two_worker_processes(tmp_path, uncased_vocab_file, bert_corpus):
    output = tmp_path / "beam" / "out.tfrecord"
    result = warm_python.run(
        [sys.executable, os.path.join(ROOT, "create_pretraining_data.py"), f"--input_file={bert_corpus}",
         f"--vocab_file={uncased_vocab_file}", f"--output_file={output}", "--output_shards=2", "--dupe_factor=2",
         "--max_seq_length=64", "--max_predictions_per_seq=10", "--objective=mlm", "--documents_per_chunk=4",
         "--runner=DirectRunner", "--num_workers=2"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    # Worker processes (Beam's SDK harnesses) logged the options that --num_workers=2 gave.
    assert "'direct_num_workers': 2" in result.stderr and "'direct_running_mode': 'multi_processing'" in result.stderr
    assert "instances/s" in result.stderr and "invalid UTF-8 lines 1" in result.stderr
    assert "c_bad.txt:2: invalid UTF-8" in result.stderr
    config = PretrainingDataConfig(max_seq_length=64, dupe_factor=2, objective="mlm",
                                   masking=MaskingOptions(max_predictions_per_seq=10))
    local = output_paths(str(tmp_path / "local" / "out.tfrecord"), 2)
    write_pretraining_data(bert_corpus, local, uncased_vocab_file, config, documents_per_chunk=4,
                           processor_class=ChunkProcessor)
    assert_same_output(local, output_paths(str(output), 2))


def test_pipeline_args_carry_the_worker_count():
    assert pipeline_args("DirectRunner", 2, True, []) == [
        "--runner=DirectRunner", "--direct_num_workers=2", "--direct_running_mode=multi_processing"]
    assert pipeline_args("DirectRunner", 1, False, ["--direct_running_mode=in_memory"]) == [
        "--runner=DirectRunner", "--direct_running_mode=in_memory", "--direct_num_workers=1"]
    assert pipeline_args("DataflowRunner", 8, True, ["--project=p"]) == [
        "--runner=DataflowRunner", "--project=p", "--num_workers=8"]
    assert pipeline_args("FlinkRunner", 1, False, ["--flink_master=host:8081"]) == [
        "--runner=FlinkRunner", "--flink_master=host:8081"]
