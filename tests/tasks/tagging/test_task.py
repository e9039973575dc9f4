"""The tagging task under the shared trainer: loss falls, outputs well formed;
on XLNet too (left-padded windows, trimmed on the left); a plain tag set
(part of speech) scored by token accuracy, CoNLL's IOB1 chunk column by
conlleval's chunks."""

import os

import keras
import numpy as np
import pytest

from checkpoints.loader import CheckpointMismatchError
from checkpoints.ours import save_weights
from families.bert.encoder import BertEncoder
from families.xlnet.config import XLNetConfig
from modeling.crf import viterbi_tags
from tasks.tagging.conll_reader import TaggedFileError
from tasks.tagging.metrics import entity_scores, token_accuracy
from tasks.tagging.predictions import values_per_word
from tasks.tagging.task import TaggingConfig, TaggingTask, find_split_file
from tests.conftest import FIXTURES
from tests.families.xlnet.spiece_model import learn_spiece_model
from tests.tiny_config import TINY_CONFIG
from training.optimization import OptimizerConfig
from training.run_options import RunOptions
from training.trainer import Trainer

DATA = os.path.join(FIXTURES, "conll_tiny")


def _task(vocab_file, **kwargs):
    return TaggingTask(TaggingConfig(DATA, vocab_file, TINY_CONFIG, max_seq_length=16, doc_stride=6,
                                     **kwargs))


def _read_predictions(path):
    sentences, current = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line == "\n":
                sentences.append(current)
                current = []
            else:
                current.append(line.rstrip("\n").split(" "))
    assert not current  # every sentence ends with a blank line
    return sentences


def _train(task, output_dir, steps=12):
    trainer = Trainer(task, RunOptions(output_dir=str(output_dir), log_steps=steps // 2,
                                       save_checkpoints_steps=steps))
    records = trainer.train(4, steps, OptimizerConfig(learning_rate=3e-3))
    return trainer, records


def test_fine_tuning_learns_and_writes_conll_predictions(uncased_vocab_file, tmp_path):
    keras.utils.clear_session()
    task = _task(uncased_vocab_file, predict_split="dev")
    assert task.num_examples("train") > len(task.sentences("train"))  # long sentences split
    trainer, records = _train(task, tmp_path)
    assert records[-1]["loss"] < records[0]["loss"]
    results = trainer.evaluate(8, split="dev")
    assert {"loss", "token_accuracy", "precision", "recall", "f1", "PER_f1"} <= set(results)
    path, = task.write_predictions("dev", trainer.predict(8, split="dev"), str(tmp_path))
    assert os.path.basename(path) == "predictions.txt"
    written = _read_predictions(path)
    sentences = task.sentences("dev")
    assert [[w for w, _, _ in s] for s in written] == [list(s.words) for s in sentences]
    assert all(len(row) == 3 and row[2] in task.labels for s in written for row in s)
    scores = entity_scores([[g for _, g, _ in s] for s in written],
                           [[p for _, _, p in s] for s in written])
    assert scores.f1 == pytest.approx(results["f1"])


def test_feature_based_trains_only_the_bilstm_and_its_crf(uncased_vocab_file, tmp_path):
    """With `crf`: the loss (the chain's NLL) falls and the transitions learn;
    a new trainer on the output_dir reads them back from the checkpoint; the
    predictions are the Viterbi tags of each window's words, and F1 is theirs."""
    keras.utils.clear_session()
    encoder = BertEncoder(TINY_CONFIG)
    save_weights(encoder, str(tmp_path / "encoder"))
    task = _task(uncased_vocab_file, feature_based=True, feature_layers="weighted_sum_all",
                 lstm_units=8, lstm_layers=1, init_checkpoint=str(tmp_path / "encoder"), crf=True,
                 predict_split="dev")
    trainer, records = _train(task, tmp_path / "run", steps=6)
    assert records[-1]["loss"] < records[0]["loss"]
    for before, after in zip(encoder.weights, trainer.model.encoder.weights):
        np.testing.assert_array_equal(np.array(before), np.array(after))
    transitions = [w.numpy() for w in trainer.model.get_layer("crf").weights]
    assert all(np.abs(w).max() > 1e-4 for w in transitions)  # from their zero start

    resumed = Trainer(task, RunOptions(output_dir=str(tmp_path / "run")))
    predictions = resumed.predict(8, split="dev")
    for trained, read in zip(transitions, resumed.model.get_layer("crf").weights):
        np.testing.assert_array_equal(trained, read.numpy())
    labelled = predictions["label_weights"] > 0
    assert "crf_transitions" not in predictions and labelled.sum() == 42
    packed = np.concatenate([transitions[0], transitions[1][None], transitions[2][None]])
    expected = viterbi_tags(predictions["logits"], np.repeat(packed[None], len(labelled), 0), labelled)
    np.testing.assert_array_equal(predictions["tags"][labelled], np.asarray(expected)[labelled])
    written = _read_predictions(task.write_predictions("dev", predictions, str(tmp_path))[0])
    tags = values_per_word(predictions["label_weights"], predictions["word_index"],
                           predictions["sentence_index"], predictions["tags"])
    assert [[task.labels.index(p) for _, _, p in s] for s in written] == [
        tags[i] for i in range(len(written))]
    assert entity_scores([[g for _, g, _ in s] for s in written], [[p for _, _, p in s] for s in written]
                         ).f1 == pytest.approx(task.evaluate(predictions)["f1"])


def test_initialize_needs_every_encoder_variable(uncased_vocab_file, tmp_path):
    keras.utils.clear_session()
    encoder = BertEncoder(TINY_CONFIG)
    save_weights(encoder, str(tmp_path / "encoder"),
                 only={v.path for v in encoder.weights if "pooler" not in v.path})
    task = _task(uncased_vocab_file, init_checkpoint=str(tmp_path / "encoder"))
    with pytest.raises(CheckpointMismatchError, match="no value for 2 encoder variables"):
        task.initialize(task.build_model())


def test_labels_flag_and_split_files(uncased_vocab_file, tmp_path):
    task = _task(uncased_vocab_file, labels=("O", "B-PER", "I-PER"))
    with pytest.raises(TaggedFileError, match=r"train\.txt:3: tag 'B-ORG'"):
        task.features("train")
    assert find_split_file(DATA, "dev").endswith("dev.txt")
    (tmp_path / "eng.testa").write_text("a O\n")
    assert find_split_file(str(tmp_path), "dev").endswith("eng.testa")
    with pytest.raises(FileNotFoundError, match="expected one of test.txt, eng.testb"):
        find_split_file(str(tmp_path), "test")


def test_xlnet_trains_on_left_padded_windows(tmp_path):
    keras.utils.clear_session()
    config = XLNetConfig.from_preset("xlnet_tiny").replace(n_token=128)
    spiece_model = learn_spiece_model(tmp_path)
    with pytest.raises(ValueError, match="feature_based: .* the xlnet encoder is fine-tuned, or read by its record"):
        TaggingTask(TaggingConfig(DATA, spiece_model, config, feature_based=True))
    task = TaggingTask(TaggingConfig(DATA, spiece_model, config, max_seq_length=16,
                                     doc_stride=6, do_lower_case=False, predict_split="dev"))
    assert task.text_side.family == "xlnet"
    for features, labels in task.build_dataset("train", 4, training=True).take(4):
        mask = features["input_mask"].numpy()
        assert mask.shape[1] == mask.sum(axis=1).max() and mask[:, -1].all()  # <cls> kept
        assert (labels["label_weights"].numpy() <= mask).all()
    trainer, records = _train(task, tmp_path / "run")
    assert records[-1]["loss"] < records[0]["loss"]
    results = trainer.evaluate(8, split="dev")
    assert {"f1", "PER_f1", "token_accuracy"} <= set(results)
    path, = task.write_predictions("dev", trainer.predict(8, split="dev"), str(tmp_path))
    assert [[w for w, _, _ in s] for s in _read_predictions(path)] == [
        list(s.words) for s in task.sentences("dev")]


def _logits_per_word(predictions):
    """{(sentence, word): logits} from gathered windows."""
    by_sentence = values_per_word(predictions["label_weights"], predictions["word_index"],
                                  predictions["sentence_index"], predictions["logits"])
    return {(s, w): np.asarray(v) for s, values in by_sentence.items() for w, v in enumerate(values)}


@pytest.mark.parametrize("encoder", ["bert", "bert_feature_based", "xlnet"])
def test_evaluation_from_short_to_long_windows_changes_no_output(uncased_vocab_file, tmp_path,
                                                                  encoder):
    """Evaluation and prediction read the windows from shortest to longest, each
    batch cut to its longest (on the left for XLNet): every word's logits and
    the loss are those of full-length batches, in fewer tokens."""
    keras.utils.clear_session()
    if encoder == "xlnet":
        task = TaggingTask(TaggingConfig(
            DATA, learn_spiece_model(tmp_path), XLNetConfig.from_preset("xlnet_tiny").replace(n_token=128),
            max_seq_length=16, doc_stride=6, do_lower_case=False))
    else:
        task = _task(uncased_vocab_file, feature_based=encoder == "bert_feature_based",
                     feature_layers="weighted_sum_all", lstm_units=8, lstm_layers=1)
    trainer = Trainer(task, RunOptions(output_dir=str(tmp_path / "run")))
    widths = [f["input_mask"].shape[1] for f, _ in task.build_dataset("dev", 4, training=False)]
    trimmed = trainer.predict(4, split="dev")
    trimmed_loss = trainer.evaluate(4, split="dev")["loss"]
    task.config.trim_padding = False
    full = trainer.predict(4, split="dev")
    assert trimmed["logits"].shape == full["logits"].shape == (task.num_examples("dev"), 16,
                                                               len(task.labels))
    assert widths == sorted(widths) and widths[0] < 16
    assert sum(widths) < 16 * len(widths)
    trimmed_words, full_words = _logits_per_word(trimmed), _logits_per_word(full)
    assert sorted(trimmed_words) == sorted(full_words)
    assert len(full_words) == sum(len(s.words) for s in task.sentences("dev"))
    for key, logits in full_words.items():  # masked positions add exact zeros; float32 sums of other lengths
        np.testing.assert_allclose(trimmed_words[key], logits, atol=1e-5, err_msg=str(key))
    assert trimmed_loss == pytest.approx(trainer.evaluate(4, split="dev")["loss"], rel=1e-5)


POS_WORDS = {"the": "DT", "a": "DT", "red": "JJ", "old": "JJ", "house": "NN", "door": "NN",
             "houses": "NNS", "doors": "NNS", "opened": "VBD", "stood": "VBD", ".": "."}


def _write_pos_files(data_dir):
    """Sentences whose every word has one part-of-speech tag: `word tag` lines."""
    data_dir.mkdir()
    patterns = [("the", "red", "house", "stood", "."), ("a", "door", "opened", "."),
                ("the", "old", "doors", "opened"), ("houses", "stood", "."), ("a", "red", "door", ".")]
    for split, rows in (("train", patterns * 2), ("dev", patterns[::2]), ("test", patterns[1:2])):
        (data_dir / f"{split}.txt").write_text("".join(
            "".join(f"{w} {POS_WORDS[w]}\n" for w in words) + "\n" for words in rows))


def test_a_plain_tag_set_trains_and_is_scored_by_token_accuracy(uncased_vocab_file, tmp_path):
    keras.utils.clear_session()
    _write_pos_files(tmp_path / "pos")
    task = TaggingTask(TaggingConfig(str(tmp_path / "pos"), uncased_vocab_file, TINY_CONFIG,
                                     max_seq_length=16, tag_scheme="tags", predict_split="dev"))
    assert task.labels == [".", "DT", "JJ", "NN", "NNS", "VBD"]  # every tag of train and dev, sorted
    trainer, records = _train(task, tmp_path / "run", steps=20)
    assert records[-1]["loss"] < records[0]["loss"]
    predictions = trainer.predict(8, split="dev")
    results = task.evaluate(predictions)
    written = _read_predictions(task.write_predictions("dev", predictions, str(tmp_path))[0])
    gold, predicted = [[g for _, g, _ in s] for s in written], [[p for _, _, p in s] for s in written]
    assert gold == [[POS_WORDS[w] for w, _, _ in s] for s in written]
    right = sum(g == p for gs, ps in zip(gold, predicted) for g, p in zip(gs, ps))
    assert results == {"accuracy": pytest.approx(right / sum(map(len, gold)))}
    assert trainer.evaluate(8, split="dev")["token_accuracy"] == pytest.approx(results["accuracy"])
    assert task.export_meta().tag_scheme == "tags"
    with pytest.raises(ValueError, match="tag_scheme must be one of"):
        TaggingConfig(DATA, uncased_vocab_file, TINY_CONFIG, tag_scheme="pos")


def test_a_tag_only_dev_holds_is_a_label_scored_not_an_error(uncased_vocab_file, tmp_path):
    """A subset's dev file may hold a rare tag (CoNLL-2003's WP$) its train file
    lacks: the model never learns it and every word carrying it counts as wrong."""
    _write_pos_files(tmp_path / "pos")
    with open(tmp_path / "pos" / "dev.txt", "a", encoding="utf-8") as f:
        f.write("whose WP$\nhouse NN\n\n")
    task = TaggingTask(TaggingConfig(str(tmp_path / "pos"), uncased_vocab_file, TINY_CONFIG,
                                     max_seq_length=16, tag_scheme="tags", predict_split="dev"))
    assert task.labels == [".", "DT", "JJ", "NN", "NNS", "VBD", "WP$"]
    assert [s.tags for s in task.sentences("dev")][-1] == ("WP$", "NN")
    assert "WP$" not in {t for s in task.sentences("train") for t in s.tags}


def test_conll_chunk_column_in_iob1_is_scored_as_conlleval_scores_it(uncased_vocab_file, tmp_path):
    """CoNLL-2003's chunk column (2) of the original release is IOB1 (`I-NP`
    opens a chunk): read as IOB2, the labels are B-/I- of each chunk type, and
    the chunks scored are those conlleval finds in the file's own tags."""
    keras.utils.clear_session()
    task = _task(uncased_vocab_file, tag_column=2, predict_split="dev")
    assert task.labels == ["O", "B-ADVP", "I-ADVP", "B-NP", "I-NP", "B-PP", "I-PP", "B-VP", "I-VP"]
    first = task.sentences("train")[0]
    assert first.tags[:4] == ("B-NP", "B-VP", "B-NP", "I-NP")  # I-NP I-VP I-NP I-NP in the file
    predictions = Trainer(task, RunOptions(output_dir=str(tmp_path / "run"))).predict(8, split="dev")
    results = task.evaluate(predictions)
    written = _read_predictions(task.write_predictions("dev", predictions, str(tmp_path))[0])
    raw = [line.split() for line in open(os.path.join(DATA, "dev.txt"), encoding="utf-8")]
    file_tags = [row[2] for row in raw if row and row[0] != "-DOCSTART-"]
    gold, predicted = [[g for _, g, _ in s] for s in written], [[p for _, _, p in s] for s in written]
    assert sum(map(len, gold)) == len(file_tags)
    # conlleval over the file's IOB1 tags finds the same chunks as over the IOB2 gold.
    by_file, lengths = [], [len(s) for s in gold]
    for n in lengths:
        by_file.append(file_tags[:n])
        file_tags = file_tags[n:]
    expected = entity_scores(by_file, predicted)
    assert results["f1"] == pytest.approx(expected.f1) and results["NP_f1"] == pytest.approx(
        expected.per_type["NP"].f1)
    assert results["accuracy"] == pytest.approx(token_accuracy(gold, predicted))
