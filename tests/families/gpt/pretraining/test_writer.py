"""`create_gpt_pretraining_data.py`'s records: the corpus's ids as the
original tokenizer gives them, in order, cut into windows; windows dealt over
the shards with none left empty; the settings beside them; bad input named."""

import json
import os
import shutil

import numpy as np
import pytest

from data.pretraining import features as F
from data.pretraining.corpus_reader import CorpusError
from data.pretraining.record_statistics import read_examples
from data.pretraining.records_metadata import read_metadata
from data.pretraining.writer import write_pretraining_data
from families.gpt.pretraining.chunks import GPTChunkProcessor, summary_lines
from families.gpt.pretraining.config import GPTDataConfig
from families.gpt.pretraining.records import windows
from families.gpt.tokenizer import GPTTokenizer
from tests.families.gpt.kit import ENCODER_FILE
from tests.families.gpt.pretraining.corpus import write_records
from tests.families.xlnet.corpus import write_corpus


def documents(corpus):
    with open(corpus, encoding="utf-8") as f:
        return [block.split("\n") for block in f.read().strip("\n").split("\n\n")]


def original_stream(docs):
    """The original pipeline's ids of each line, a document's lines running on,
    the newline piece after each document."""
    tokenizer = GPTTokenizer.from_file(ENCODER_FILE)
    newline = tokenizer.bpe.encoder["\n</w>"]
    return [i for doc in docs for i in [*(i for line in doc for i in tokenizer.encode(line)), newline]]


def test_records_are_the_corpus_ids_in_order_cut_into_windows(tmp_path):
    """The in-graph tokenizer, as by default, gives the original's ids here."""
    corpus, paths, counts = write_records(tmp_path, max_seq_length=16, original_tokenizer=False)
    records = read_examples(paths)
    assert set(records) == {F.INPUT_IDS, F.INPUT_MASK}
    ids, mask = records[F.INPUT_IDS], records[F.INPUT_MASK]
    want = original_stream(documents(corpus))
    assert ids[mask > 0].tolist() == want
    lengths = mask.sum(axis=1)
    assert (lengths[:-1] == 16).all() and 2 <= lengths[-1] <= 16  # only the last window is short
    assert (ids[mask == 0] == 0).all() and (np.diff(mask, axis=1) <= 0).all()
    assert counts["instances"] == len(ids) and counts["targets"] == int((lengths - 1).sum())
    assert counts["documents"] == 20 and counts["corpus_tokens"] == len(want)
    assert any(line.startswith(f"records {len(ids)} ") for line in summary_lines(counts))


def test_the_original_tokenizer_gives_the_same_stream(tmp_path):
    docs = documents(write_corpus(tmp_path / "corpus.txt", 3))
    processor = GPTChunkProcessor(GPTDataConfig(16, original_tokenizer=True), ENCODER_FILE)
    assert processor.stream(docs, {"documents": 0, "corpus_tokens": 0, "lines_without_tokens": 0}) == \
        original_stream(docs)


def test_windows_pad_the_last_and_drop_one_that_predicts_nothing():
    ids, mask = windows([5, 6, 7, 8, 9], 3)
    assert ids.tolist() == [[5, 6, 7], [8, 9, 0]] and mask.tolist() == [[1, 1, 1], [1, 1, 0]]
    ids, mask = windows([5, 6, 7, 8, 9], 2)
    assert ids.tolist() == [[5, 6], [7, 8]] and mask.tolist() == [[1, 1], [1, 1]]
    assert windows([5], 4)[0].shape == (0, 4)


def test_windows_are_dealt_over_the_shards_and_none_is_left_empty(tmp_path):
    _, paths, counts = write_records(tmp_path / "dealt", documents=30, shards=3, chunk=10)
    per_shard = [read_examples([p])[F.INPUT_IDS] for p in paths]
    assert [len(s) for s in per_shard] == counts["records_per_shard"] and min(map(len, per_shard)) > 0
    metadata = read_metadata(paths[0])
    assert metadata["family"] == "gpt" and metadata["settings"]["max_seq_length"] == 16
    assert metadata["settings"]["vocab_size"] == len(json.load(open(ENCODER_FILE, encoding="utf-8")))
    _, paths, counts = write_records(tmp_path / "one", documents=1, max_seq_length=200, shards=3)
    assert counts["records_per_shard"] == [1, 0, 0]
    assert sorted(os.listdir(tmp_path / "one")) == [".gpt.tfrecord.metadata.json", "corpus.txt",
                                                    os.path.basename(paths[0])]


def test_invalid_utf8_and_an_empty_corpus_are_errors_that_write_nothing(tmp_path):
    corpus = write_records(tmp_path / "first", documents=2)[0]
    bad = tmp_path / "bad.txt"
    bad.write_bytes(open(corpus, "rb").read() + b"\nok line\nbad \xff byte\n")
    with pytest.raises(CorpusError, match=r"bad\.txt:\d+: invalid UTF-8"):
        _write(tmp_path, bad)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"no tokens in .*empty\.txt: every line is blank"):
        _write(tmp_path, empty)
    assert sorted(os.listdir(tmp_path)) == ["bad.txt", "empty.txt", "first"]


def _write(directory, corpus):
    return write_pretraining_data(str(corpus), [str(directory / "out.tfrecord")], ENCODER_FILE,
                                  GPTDataConfig(16), processor_class=GPTChunkProcessor, log_every_seconds=1e9)


def test_a_vocabulary_without_the_newline_piece_is_refused(tmp_path):
    with open(ENCODER_FILE, encoding="utf-8") as f:
        encoder = json.load(f)
    assert encoder.pop("\n</w>") == len(encoder)  # the last id: the rest stay 0..n-1
    without = tmp_path / "encoder_bpe_2000.json"
    without.write_text(json.dumps(encoder), encoding="utf-8")
    shutil.copyfile(ENCODER_FILE.replace("encoder_bpe_2000.json", "vocab_2000.bpe"), tmp_path / "vocab_2000.bpe")
    with pytest.raises(ValueError, match=f"{without}: no newline piece"):
        GPTChunkProcessor(GPTDataConfig(16), str(without))
