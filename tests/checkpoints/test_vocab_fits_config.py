"""A config whose vocab_size is smaller than the vocabulary (or than the ids
in pretraining records) is refused at set-up, naming both files and both
numbers, instead of failing at the first step inside the embedding gather."""

import os
import shutil
import sys

import pytest

from checkpoints.companion_files import resolve_model_files
from families.bert.pretraining.chunks import ChunkProcessor
from families.bert.pretraining.config import PretrainingDataConfig
from data.pretraining.dataset import RecordLayoutError, check_record_ids
from data.pretraining.writer import write_pretraining_data
from families.bert.config import BertConfig, ConfigError
from tests import warm_python
from tests.conftest import FIXTURES, ROOT

TINY = dict(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=37,
            max_position_embeddings=64)


def write_config(path, vocab_size):
    BertConfig(vocab_size=vocab_size, **TINY).to_json_file(str(path))
    return str(path)


def test_a_vocabulary_larger_than_vocab_size_is_refused_naming_both_files(tmp_path,
                                                                          uncased_vocab_file):
    config_file = write_config(tmp_path / "bert_config.json", 1000)
    with pytest.raises(ConfigError) as error:
        resolve_model_files(uncased_vocab_file, config_file)
    message = str(error.value)
    assert f"{uncased_vocab_file} has 30522 tokens" in message
    assert f"{config_file} has vocab_size=1000" in message


def test_the_config_beside_the_checkpoint_is_named(tmp_path, uncased_vocab_file):
    write_config(tmp_path / "bert_config.json", 30000)
    shutil.copy(uncased_vocab_file, tmp_path / "vocab.txt")
    with pytest.raises(ConfigError, match=f"{tmp_path / 'bert_config.json'} has vocab_size=30000"):
        resolve_model_files(init_checkpoint=str(tmp_path / "bert_model.ckpt"))
    with pytest.raises(ConfigError, match="--preset=bert_base_cased has vocab_size=28996"):
        resolve_model_files(uncased_vocab_file, preset="bert_base_cased")


@pytest.mark.parametrize("vocab_size", [30522, 30528])
def test_a_config_with_room_for_every_id_passes(tmp_path, uncased_vocab_file, vocab_size):
    config_file = write_config(tmp_path / "bert_config.json", vocab_size)
    vocab_file, config = resolve_model_files(uncased_vocab_file, config_file)
    assert vocab_file == uncased_vocab_file and config.vocab_size == vocab_size


def test_pretraining_records_with_ids_past_vocab_size_are_refused(tmp_path, uncased_vocab_file):
    records = str(tmp_path / "train.tfrecord")
    write_pretraining_data(os.path.join(FIXTURES, "pretraining_corpus.txt"), [records],
                           uncased_vocab_file, PretrainingDataConfig(max_seq_length=64, dupe_factor=1),
                           log_every_seconds=1e9, processor_class=ChunkProcessor)
    check_record_ids(records, 30522, "bert_config.json")
    with pytest.raises(RecordLayoutError, match=f"{records}: token id .* but bert_config.json has "
                                                "vocab_size=1000"):
        check_record_ids(records, 1000, "bert_config.json")
    with pytest.raises(RecordLayoutError, match="but xlnet_config.json has n_token=1000"):
        check_record_ids(records, 1000, "xlnet_config.json", vocab_size_field="n_token")


@pytest.mark.slow
def test_run_classifier_stops_at_set_up(tmp_path, uncased_vocab_file):
    config_file = write_config(tmp_path / "bert_config.json", 1000)
    result = warm_python.run(
        [sys.executable, os.path.join(ROOT, "run_classifier.py"), "--task_name=MRPC",
         f"--data_dir={os.path.join(FIXTURES, 'glue_mrpc')}", f"--vocab_file={uncased_vocab_file}",
         f"--bert_config_file={config_file}", f"--output_dir={tmp_path / 'out'}", "--do_train",
         "--max_seq_length=32", "--train_batch_size=2"],
        capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode != 0
    assert f"{config_file} has vocab_size=1000" in result.stderr
    assert "GatherV2" not in result.stderr
