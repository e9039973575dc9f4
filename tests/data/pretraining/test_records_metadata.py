"""Pretraining records carry their writer's settings in a metadata file beside
the shards, and readers refuse settings that disagree, naming both values and
the file; records without metadata are read as before, saying so."""

import glob
import logging
import os

import pytest
import sentencepiece as spm

from data.pretraining.dataset import pretraining_dataset
from data.pretraining.records_metadata import (RecordLayoutError, check_vocab_size, metadata_path,
                                               read_metadata)
from data.pretraining.writer import output_paths, write_pretraining_data
from families.bert.commands.pack_pretraining_data import pack_pretraining_files
from families.bert.pretraining.chunks import ChunkProcessor
from families.bert.pretraining.config import MaskingOptions, PretrainingDataConfig
from families.xlnet.pretraining.chunks import XLNetChunkProcessor
from families.xlnet.pretraining.config import XLNetDataConfig
from families.xlnet.pretraining.dataset import xlnet_pretraining_dataset
from tests.conftest import FIXTURES
from tests.families.xlnet.corpus import build_spiece, write_corpus
from tests.pretraining_records import write_records


@pytest.fixture(scope="module")
def xlnet_records(tmp_path_factory):
    """Two shards of XLNet records (seq_len 32, reuse_len 16, bsz_per_host 4, num_predict 6)."""
    root = tmp_path_factory.mktemp("xlnet_metadata")
    spiece = build_spiece(root)
    paths = output_paths(str(root / "out" / "xlnet.tfrecord"), 2)
    counts = write_pretraining_data(
        write_corpus(root / "corpus.txt", 60), paths, spiece,
        XLNetDataConfig(seq_len=32, reuse_len=16, bsz_per_host=4, num_predict=6), documents_per_chunk=30,
        processor_class=XLNetChunkProcessor, log_every_seconds=1e9)
    return paths, counts, spm.SentencePieceProcessor(model_file=spiece).get_piece_size()


def test_the_xlnet_writer_records_its_settings_beside_the_shards(xlnet_records):
    paths, counts, pieces = xlnet_records
    directory = os.path.dirname(paths[0])
    assert metadata_path(paths[1]) == os.path.join(directory, ".xlnet.tfrecord.metadata.json")
    metadata = read_metadata(paths[1])
    assert metadata["family"] == "xlnet"
    assert {name: metadata["settings"][name] for name in (
        "seq_len", "reuse_len", "num_predict", "bsz_per_host", "num_core_per_host", "bi_data", "vocab_size")} == {
        "seq_len": 32, "reuse_len": 16, "num_predict": 6, "bsz_per_host": 4, "num_core_per_host": 1,
        "bi_data": True, "vocab_size": pieces}
    assert metadata["records"] == {os.path.basename(p): n for p, n in zip(paths, counts["records_per_shard"])}
    assert all(counts["records_per_shard"])
    assert sorted(glob.glob(f"{directory}/xlnet.tfrecord*")) == paths  # globs over the shards skip it


@pytest.mark.parametrize("reuse_len, num_predict, message", [
    (16, 5, "--num_predict=5 but {path} was written with num_predict=6 ({metadata})"),
    (8, 6, "--reuse_len=8 but {path} was written with reuse_len=16 ({metadata})")],
    ids=["num_predict", "reuse_len"])
def test_the_xlnet_reader_refuses_settings_the_records_disagree_with(xlnet_records, reuse_len, num_predict,
                                                                     message):
    paths = xlnet_records[0]
    with pytest.raises(RecordLayoutError) as error:
        xlnet_pretraining_dataset(paths, 4, 32, reuse_len, 8, num_predict)
    assert str(error.value) == message.format(path=paths[0], metadata=metadata_path(paths[0]))


def test_the_vocabulary_check_reads_the_size_the_writer_used(xlnet_records):
    paths, _, pieces = xlnet_records
    assert check_vocab_size(paths, pieces, "n_token", "xlnet_config.json") == []
    with pytest.raises(RecordLayoutError, match=rf"{paths[0]} was written with a vocabulary of {pieces} ids "
                                                rf"\(0-{pieces - 1}; .*\) but xlnet_config.json has "
                                                rf"n_token={pieces - 1}$"):
        check_vocab_size(paths, pieces - 1, "n_token", "xlnet_config.json")


def test_bert_records_and_packed_rows_carry_their_settings(tmp_path, uncased_vocab_file):
    records = str(tmp_path / "seq64.tfrecord")
    config = PretrainingDataConfig(max_seq_length=64, dupe_factor=2, masking=MaskingOptions(max_predictions_per_seq=10))
    write_pretraining_data(os.path.join(FIXTURES, "pretraining_corpus.txt"), [records], uncased_vocab_file, config,
                           log_every_seconds=1e9, processor_class=ChunkProcessor)
    settings = read_metadata(records)["settings"]
    assert read_metadata(records)["family"] == "bert"
    assert {name: settings[name] for name in ("max_seq_length", "max_predictions_per_seq", "next_sentence_labels",
                                              "max_sequences_per_pack", "vocab_size")} == {
        "max_seq_length": 64, "max_predictions_per_seq": 10, "next_sentence_labels": True,
        "max_sequences_per_pack": 0, "vocab_size": 30522}
    with pytest.raises(RecordLayoutError, match=r"--max_predictions_per_seq=20 but .*seq64.tfrecord was written "
                                                r"with max_predictions_per_seq=10 \(.*\.seq64\.tfrecord\.metadata"):
        pretraining_dataset(records, 4, 64, 20)
    with pytest.raises(RecordLayoutError, match=r"next_sentence_labels \(--objective\)=false but .* "
                                                r"next_sentence_labels=true"):
        pretraining_dataset(records, 4, 64, 10, next_sentence_labels=False)

    packed = str(tmp_path / "packed.tfrecord")
    stats = pack_pretraining_files(records, packed, 64, 10, max_sequences_per_pack=2)
    metadata = read_metadata(packed)
    assert metadata["settings"]["max_sequences_per_pack"] == 2 and metadata["settings"]["vocab_size"] == 30522
    assert metadata["records"] == {"packed.tfrecord": stats["rows"]}
    with pytest.raises(RecordLayoutError, match="--max_sequences_per_pack=3 but"):
        pretraining_dataset(packed, 4, 64, 10, max_sequences_per_pack=3)


def test_records_without_metadata_are_read_as_before_saying_so(tmp_path, caplog):
    records = write_records(tmp_path / "old.tfrecord", count=8, seq_length=16, predictions=4)
    with caplog.at_level(logging.INFO):
        assert sum(len(batch["input_ids"]) for batch in pretraining_dataset(records, 4, 16, 4)) == 8
        assert check_vocab_size([records], 100, "vocab_size", "bert_config.json") == [records]
    assert f"{records} has no metadata ({tmp_path}/.old.tfrecord.metadata.json" in caplog.text
    assert "its settings are checked from its first record only" in caplog.text
    assert "its token ids are checked in its first records only" in caplog.text
