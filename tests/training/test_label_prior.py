"""Each fine-tuning task's `prior_loss`: the loss of the best constant predictor
on its train split, against values worked out by hand on tiny train files, and
against the task's own `loss` of that constant prediction (so it is the floor
in the loss the task trains with)."""

import json
import math
import os

import numpy as np
import pytest

from tasks.classification.custom_reader import CustomReader
from families.xlnet.config import XLNetConfig
from families.xlnet.question_answering.head import BeamHead
from tasks.classification.task import ClassificationConfig, ClassificationTask
from training.label_prior import entropy, prior_cross_entropy, prior_squared_error
from tasks.multiple_choice.task import MultipleChoiceConfig, MultipleChoiceTask
from tasks.question_answering.task import QuestionAnsweringConfig, QuestionAnsweringTask
from tasks.tagging.task import TaggingConfig, TaggingTask
from tests.conftest import FIXTURES
from tests.tiny_config import TINY_CONFIG

H_TWO_THIRDS = -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3))  # labels [a, a, b]


def _log(probabilities):
    """Logits of a distribution; a class it never gives stays far below the others."""
    return np.log(np.maximum(np.asarray(probabilities, np.float64), 1e-30)).astype(np.float32)


def _mean_loss(task, labels, outputs):
    return float(np.mean(np.asarray(task.loss(labels, outputs))))


def test_entropy_and_variance_by_hand():
    assert prior_cross_entropy([0, 0, 1]) == pytest.approx(H_TWO_THIRDS, rel=1e-12)
    assert entropy([2, 1, 0]) == pytest.approx(H_TWO_THIRDS, rel=1e-12)
    assert prior_cross_entropy([3, 3, 3]) == 0.0
    # Rows weighting their labels: the mean weight of a row times the weighted entropy.
    assert prior_cross_entropy([[0, 1], [1, 1]], [[0.5, 0.5], [0, 0]]) == pytest.approx(
        0.5 * math.log(2), rel=1e-12)
    assert prior_squared_error([1.0, 2.0, 4.0]) == pytest.approx(14 / 9, rel=1e-12)
    with pytest.raises(ValueError, match="no labels"):
        prior_cross_entropy([])


def _write_tsv(directory, rows):
    directory.mkdir()
    (directory / "train.tsv").write_text(
        "sentence\tlabel\n" + "".join(f"{text}\t{label}\n" for text, label in rows), encoding="utf-8")
    return str(directory)


@pytest.mark.parametrize("regression", [False, True])
def test_classification_prior_is_the_label_entropy_or_variance(tmp_path, uncased_vocab_file, regression):
    labels = ["1.0", "2.0", "4.0"] if regression else ["yes", "yes", "no"]
    data_dir = _write_tsv(tmp_path / "data", zip(["red house", "old door", "green room"], labels))
    task = ClassificationTask(ClassificationConfig(
        CustomReader(data_dir, "sentence", regression=regression), uncased_vocab_file, TINY_CONFIG,
        cache_dir=str(tmp_path), max_seq_length=8))
    expected = 14 / 9 if regression else H_TWO_THIRDS
    assert task.prior_loss() == pytest.approx(expected, rel=1e-12)
    _, batch = next(iter(task.build_dataset("train", 3, training=False)))
    if regression:
        constant = np.full((3, 1), 7 / 3, np.float32)  # the mean
    else:
        constant = np.tile(_log([labels.count(name) / 3 for name in task.reader.label_list]), (3, 1))
    assert _mean_loss(task, batch, {"logits": constant}) == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("crf", [False, True])
def test_tagging_prior_weights_the_tags_as_the_loss_does(tmp_path, uncased_vocab_file, crf):
    """Windows [X X Y] and [Y]: the mean over a window's words weights its tags
    1/3 and 1 (prior H(1/3, 2/3)); a CRF's sum over them weights each tag 1:
    the best constant is (1/2, 1/2), ln 2 a word, 2 words a window."""
    data_dir = tmp_path / "tags"
    data_dir.mkdir()
    (data_dir / "train.txt").write_text("red X\nold X\nhouse Y\n\ndoor Y\n", encoding="utf-8")
    task = TaggingTask(TaggingConfig(str(data_dir), uncased_vocab_file, TINY_CONFIG, max_seq_length=8,
                                     tag_scheme="tags", crf=crf))
    assert task.labels == ["X", "Y"]
    expected = 2 * math.log(2) if crf else H_TWO_THIRDS
    assert task.prior_loss() == pytest.approx(expected, rel=1e-12)
    _, batch = next(iter(task.build_dataset("train", 2, training=False)))
    width = batch["label_ids"].shape[1]
    best = [1 / 2, 1 / 2] if crf else [1 / 3, 2 / 3]
    outputs = {"logits": np.tile(_log(best), (2, width, 1))}
    if crf:
        outputs["crf_transitions"] = np.zeros((2, 4, 2), np.float32)
    assert _mean_loss(task, batch, outputs) == pytest.approx(expected, rel=1e-6)


def test_multiple_choice_prior_is_the_entropy_of_the_gold_position(tmp_path, uncased_vocab_file):
    data_dir = tmp_path / "choices"
    data_dir.mkdir()
    rows = [{"context": "A red house.", "endings": ["door", "roof", "room"], "label": label}
            for label in (0, 0, 1)]
    (data_dir / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    task = MultipleChoiceTask(MultipleChoiceConfig(str(data_dir), uncased_vocab_file, TINY_CONFIG,
                                                   max_seq_length=12))
    assert task.prior_loss() == pytest.approx(H_TWO_THIRDS, rel=1e-12)
    _, batch = next(iter(task.build_dataset("train", 3, training=False)))
    constant = np.tile(_log([2 / 3, 1 / 3, 0]), (3, 1))
    assert _mean_loss(task, batch, {"logits": constant}) == pytest.approx(H_TWO_THIRDS, rel=1e-6)


def test_squad_prior_is_the_mean_entropy_of_the_start_and_end_positions(uncased_vocab_file):
    task = QuestionAnsweringTask(QuestionAnsweringConfig(
        uncased_vocab_file, TINY_CONFIG, train_file=os.path.join(FIXTURES, "squad_v1_tiny.json"),
        max_seq_length=48, doc_stride=16, max_query_length=12))
    features = task.split("train").features
    starts = [f.start_position for f in features]
    ends = [f.end_position for f in features]

    def frequencies(positions):
        return np.bincount(positions, minlength=48) / len(positions)

    expected = (entropy(np.bincount(starts)) + entropy(np.bincount(ends))) / 2
    assert task.prior_loss() == pytest.approx(expected, rel=1e-12)
    labels = task.head.labels(features)
    outputs = {"start_logits": np.tile(_log(frequencies(starts)), (len(features), 1)),
               "end_logits": np.tile(_log(frequencies(ends)), (len(features), 1))}
    assert _mean_loss(task, labels, outputs) == pytest.approx(expected, rel=1e-6)


def test_xlnet_squad_2_prior_adds_half_the_answer_class_entropy():
    """Starts [0, 3, 3], ends [0, 5, 4], impossible [1, 0, 0]:
    (H(1/3, 2/3) + ln 3) / 2 + H(1/3, 2/3) / 2."""
    head = BeamHead(QuestionAnsweringConfig(None, XLNetConfig.from_preset("xlnet_tiny"),
                                            version_2_with_negative=True))
    labels = {"start_positions": np.array([0, 3, 3], np.int32),
              "end_positions": np.array([0, 5, 4], np.int32),
              "is_impossible": np.array([1.0, 0.0, 0.0], np.float32)}
    expected = (H_TWO_THIRDS + math.log(3)) / 2 + H_TWO_THIRDS / 2
    assert head.prior_loss(labels) == pytest.approx(expected, rel=1e-12)
    outputs = {"start_log_probs": np.tile(_log([1 / 3, 0, 0, 2 / 3, 0, 0]), (3, 1)),
               "end_log_probs": np.tile(_log([1 / 3, 0, 0, 0, 1 / 3, 1 / 3]), (3, 1)),
               "cls_logits": np.full(3, math.log(1 / 2), np.float32)}  # p = 1/3: logit ln(1/2)
    assert float(np.mean(np.asarray(head.loss(labels, outputs)))) == pytest.approx(expected, rel=1e-6)
    head.config.version_2_with_negative = False
    assert head.prior_loss(labels) == pytest.approx((H_TWO_THIRDS + math.log(3)) / 2, rel=1e-12)
