"""The multiple-choice task: [B, N, T] inputs -> [B, N] logits, loss, datasets, predictions file."""

import json
import os
import shutil

import numpy as np
import pytest

from tasks.multiple_choice.task import MultipleChoiceConfig, MultipleChoiceTask, find_split_file
from tests.conftest import FIXTURES, logits_by_example
from tests.tiny_config import TINY_CONFIG

SEQ = 32


def _data_dir(tmp_path, train="swag_train.csv", dev="swag_train.csv", test="swag_test.csv"):
    for source, split in ((train, "train"), (dev, "val"), (test, "test")):
        extension = os.path.splitext(source)[1]
        shutil.copy(os.path.join(FIXTURES, source), tmp_path / (split + extension))
    return str(tmp_path)


def _task(data_dir, vocab_file, **config):
    return MultipleChoiceTask(MultipleChoiceConfig(
        data_dir=data_dir, vocab_file=vocab_file, encoder_config=TINY_CONFIG, max_seq_length=SEQ,
        **config))


def test_batches_of_choices_give_logits_per_choice(tmp_path, uncased_vocab_file):
    task = _task(_data_dir(tmp_path), uncased_vocab_file, trim_padding=False)
    model = task.build_model()
    features, labels = next(iter(task.build_dataset("dev", 3, training=False)))
    assert {k: tuple(v.shape) for k, v in features.items()} == {
        "input_word_ids": (3, 4, SEQ), "input_mask": (3, 4, SEQ), "input_type_ids": (3, 4, SEQ)}
    np.testing.assert_array_equal(labels["label"], [0, 1, 2])
    np.testing.assert_array_equal(labels["example_index"], [0, 1, 2])
    outputs = model(features, training=False)
    assert tuple(outputs["logits"].shape) == (3, 4)
    loss = np.asarray(task.loss(labels, outputs))
    assert loss.shape == (3,) and np.all(loss > 0)
    # Each example's score of choice i depends on that choice's sequence only.
    swapped = {k: np.asarray(v)[:, ::-1] for k, v in features.items()}
    np.testing.assert_allclose(np.asarray(model(swapped)["logits"]),
                               np.asarray(outputs["logits"])[:, ::-1], rtol=1e-5, atol=1e-6)


def test_evaluation_batches_from_short_to_long_change_no_output(tmp_path, uncased_vocab_file):
    task = _task(_data_dir(tmp_path), uncased_vocab_file)
    model = task.build_model()
    trimmed, widths = logits_by_example(task, model, "dev", 2)
    task.config.trim_padding = False
    padded, full_widths = logits_by_example(task, model, "dev", 2)
    assert sorted(trimmed) == sorted(padded) == list(range(task.num_examples("dev")))
    assert set(full_widths) == {SEQ}
    assert widths == sorted(widths) and widths[-1] < SEQ
    for index in padded:  # masked positions add exact zeros; float32 sums of other lengths
        np.testing.assert_allclose(trimmed[index], padded[index], atol=1e-5)


def test_three_choice_jsonl_and_unlabelled_loss(tmp_path, uncased_vocab_file):
    task = _task(_data_dir(tmp_path, train="multiple_choice_bad_rows.jsonl",
                           dev="multiple_choice_bad_rows.jsonl",
                           test="multiple_choice_3way.jsonl"), uncased_vocab_file)
    model = task.build_model()
    features, labels = next(iter(task.build_dataset("test", 6, training=False)))
    outputs = model(features)
    assert tuple(outputs["logits"].shape) == (6, 3)
    loss = np.asarray(task.loss(labels, outputs))
    unlabelled = labels["example_index"].numpy() == 5  # the file's last example has no label
    assert loss[unlabelled] == 0.0 and np.all(loss[~unlabelled] > 0)


def test_train_and_dev_need_labels(tmp_path, uncased_vocab_file):
    task = _task(_data_dir(tmp_path, dev="swag_test.csv"), uncased_vocab_file)
    with pytest.raises(ValueError, match=r"val.csv: the dev split needs a label on every "
                                         r"example, 3 have none"):
        task.build_dataset("dev", 2, training=False)
    features, labels = next(iter(task.build_dataset("train", 8, training=True)))
    assert sorted(np.asarray(labels["example_index"]).tolist()) == list(range(8))


def test_bad_rows_skipped_when_asked(tmp_path, uncased_vocab_file):
    data_dir = _data_dir(tmp_path, train="swag_bad_rows.csv")
    task = _task(data_dir, uncased_vocab_file)
    with pytest.raises(ValueError, match=r"train.csv:3: ending 1 is missing"):
        task.num_examples("train")
    task.config.skip_bad_rows = True
    assert task.num_examples("train") == 2
    assert len(task.choice_file("train").skipped) == 3


def test_predictions_file_in_input_order(tmp_path, uncased_vocab_file):
    task = _task(_data_dir(tmp_path), uncased_vocab_file)
    logits = np.array([[0.0, 2.0, 0.0, 0.0], [3.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
    order = np.array([2, 0, 1])
    output_dir = str(tmp_path / "out")
    path, = task.write_predictions("test", {"logits": logits[order], "example_index": order},
                                   output_dir)
    assert path == os.path.join(output_dir, "test_predictions.jsonl")
    with open(path, encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    assert [r["id"] for r in records] == ["4201", "4202", "4203"]
    assert [r["prediction"] for r in records] == [1, 0, 3]
    for record, row in zip(records, logits):
        assert set(record) == {"id", "probabilities", "prediction"}  # test rows have no label
        assert len(record["probabilities"]) == 4
        assert sum(record["probabilities"]) == pytest.approx(1.0, abs=1e-5)
        np.testing.assert_allclose(record["probabilities"], np.exp(row) / np.exp(row).sum(),
                                   atol=1e-6)
    with pytest.raises(ValueError, match="cover 2 distinct examples of 3"):
        task.write_predictions("test", {"logits": logits[:2], "example_index": order[:2]},
                               output_dir)


def test_split_files_found_by_name(tmp_path):
    (tmp_path / "dev.jsonl").write_text("")
    assert find_split_file(str(tmp_path), "dev").endswith("dev.jsonl")
    (tmp_path / "val.csv").write_text("")
    with pytest.raises(FileNotFoundError, match=r"2 files .* for split 'dev'"):
        find_split_file(str(tmp_path), "dev")
    with pytest.raises(FileNotFoundError, match=r"no file for split 'train'.*train.csv, "
                                               r"train.jsonl"):
        find_split_file(str(tmp_path), "train")
