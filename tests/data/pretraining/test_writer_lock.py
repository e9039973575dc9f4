"""One data writer per output name: a second writer of the same `--output_file`
is refused naming the first, whose output stays as it was, and the lock file
goes when the writer ends."""

import os
import sys

import pytest

from data.pretraining.writer import write_pretraining_data
from families.bert.commands.pack_pretraining_data import pack_pretraining_files
from families.bert.pretraining.chunks import ChunkProcessor
from families.bert.pretraining.config import PretrainingDataConfig
from tests import warm_python
from tests.conftest import FIXTURES, ROOT, process_holding_lock
from tests.families.xlnet.corpus import build_spiece, write_corpus
from tests.pretraining_records import write_records
from utils.output_dir_lock import OutputDirError

HOLD = ("import sys; from utils.output_dir_lock import output_file_lock; "
        "lock = output_file_lock(sys.argv[1]); lock.__enter__(); print('locked', flush=True); sys.stdin.read()")


def test_a_second_xlnet_writer_is_refused_and_the_first_output_is_kept(tmp_path):
    spiece, corpus = build_spiece(tmp_path), write_corpus(tmp_path / "corpus.txt", 40)
    output = tmp_path / "out" / "xlnet.tfrecord"
    args = [sys.executable, os.path.join(ROOT, "create_xlnet_pretraining_data.py"), f"--sp_path={spiece}",
            f"--input_file={corpus}", f"--output_file={output}", "--seq_len=32", "--reuse_len=16",
            "--bsz_per_host=4", "--num_predict=6"]
    first = warm_python.run(args, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr[-2000:]
    written = {p.name: p.read_bytes() for p in output.parent.iterdir()}
    assert sorted(written) == [".xlnet.tfrecord.metadata.json", "xlnet.tfrecord"]  # no lock file left
    with process_holding_lock(HOLD, output) as holder:
        second = warm_python.run(args, capture_output=True, text=True, timeout=300)
    assert second.returncode != 0
    assert (f"error: output file '{output}' is in use by another run (pid {holder.pid} on"
            in second.stderr), second.stderr[-2000:]
    assert "Traceback" not in second.stderr
    assert {p.name: p.read_bytes() for p in output.parent.iterdir()} == written


@pytest.mark.parametrize("writer", ["create_pretraining_data", "pack_pretraining_data"])
def test_the_bert_writer_and_the_packer_take_the_lock(tmp_path, uncased_vocab_file, writer):
    output = str(tmp_path / "out.tfrecord")
    with process_holding_lock(HOLD, output), pytest.raises(OutputDirError, match="in use by another run"):
        if writer == "create_pretraining_data":
            write_pretraining_data(os.path.join(FIXTURES, "pretraining_corpus.txt"), [output],
                                   uncased_vocab_file, PretrainingDataConfig(max_seq_length=64, dupe_factor=1),
                                   log_every_seconds=1e9, processor_class=ChunkProcessor)
        else:
            records = write_records(tmp_path / "in.tfrecord", count=8, seq_length=32, predictions=4)
            pack_pretraining_files(records, output, 32, 4, max_sequences_per_pack=2)
    assert not os.path.exists(output)
