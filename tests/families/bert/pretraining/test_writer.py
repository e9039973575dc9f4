"""The offline pretraining-data writer: format compatibility with the
original script, determinism, each flag's effect, the ablation variants and
bad input."""

import dataclasses
import os
import random
import sys

import numpy as np
import pytest

from tests import warm_python
from tests.conftest import FIXTURES, ROOT

from data.pretraining import features as F
from families.bert.pretraining.chunks import ChunkProcessor
from families.bert.pretraining.config import MaskingOptions, PretrainingDataConfig
from data.pretraining.corpus_reader import CorpusError
from data.pretraining.record_statistics import read_examples, statistics
from data.pretraining.writer import output_paths, write_pretraining_data
from data.text.vocab import Vocab, VocabError

CORPUS = os.path.join(FIXTURES, "pretraining_corpus.txt")
MASKING_FIELDS = {f.name for f in dataclasses.fields(MaskingOptions)}


def make_config(**settings):
    masking = MaskingOptions(**{k: v for k, v in settings.items() if k in MASKING_FIELDS})
    rest = {k: v for k, v in settings.items() if k not in MASKING_FIELDS}
    return PretrainingDataConfig(**{"dupe_factor": 2, "max_seq_length": 64, **rest, "masking": masking})


def generate(tmp_path, vocab_file, inputs=CORPUS, shards=1, workers=1, do_lower_case=True, chunk=2000, **settings):
    """Writes records for `inputs`; returns (examples, counts, paths)."""
    paths = output_paths(str(tmp_path / "out.tfrecord"), shards)
    counts = write_pretraining_data(
        inputs, paths, vocab_file, make_config(**settings), do_lower_case, workers, chunk, log_every_seconds=1e9,
        processor_class=ChunkProcessor)
    return read_examples(paths), counts, paths


@pytest.fixture(scope="module")
def vocab(uncased_vocab_file):
    return Vocab.from_file(uncased_vocab_file)


def write_text(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return str(path)


def first_example_layout(path):
    """{name: (kind, length)} of the first record of a TFRecord file."""
    import tensorflow as tf

    serialized = next(iter(tf.data.TFRecordDataset(path))).numpy()
    features = tf.train.Example.FromString(serialized).features.feature
    return {name: (f.WhichOneof("kind"), len(getattr(f, f.WhichOneof("kind")).value)) for name, f in features.items()}


def test_same_features_shapes_and_kinds_as_the_original(tmp_path, uncased_vocab_file):
    from tests.references import original_full_tokenizer
    from bert import create_pretraining_data as original

    tokenizer = original_full_tokenizer(uncased_vocab_file, True)
    instances = original.create_training_instances(
        [CORPUS], tokenizer, 128, 2, 0.1, 0.15, 20, random.Random(12345)
    )
    original.write_instance_to_example_files(instances, tokenizer, 128, 20, [str(tmp_path / "original.tfrecord")])
    _, _, ours = generate(tmp_path, uncased_vocab_file, max_seq_length=128, max_predictions_per_seq=20)

    expected = first_example_layout(str(tmp_path / "original.tfrecord"))
    assert first_example_layout(ours[0]) == expected
    assert expected[F.MASKED_LM_WEIGHTS] == ("float_list", 20)
    assert expected[F.INPUT_IDS] == ("int64_list", 128)


def test_output_is_deterministic_and_independent_of_worker_count(tmp_path, uncased_vocab_file):
    def file_bytes(workers, seed, name):
        directory = tmp_path / name
        directory.mkdir()
        _, _, paths = generate(directory, uncased_vocab_file, shards=2, workers=workers, chunk=2, random_seed=seed)
        return [open(p, "rb").read() for p in paths]

    one_worker = file_bytes(1, 7, "a")
    assert file_bytes(2, 7, "b") == one_worker
    assert file_bytes(1, 8, "c") != one_worker


def test_each_document_is_seeded_by_its_number_not_by_its_chunk(tmp_path, uncased_vocab_file):
    """Without next sentences a document's records depend on nothing else, so
    cutting the corpus into other chunks only reorders the records."""

    def records(chunk):
        paths = output_paths(str(tmp_path / f"chunks_of_{chunk}" / "out.tfrecord"), 2)
        write_pretraining_data(CORPUS, paths, uncased_vocab_file, make_config(objective="mlm", do_whole_word_mask=True),
                               documents_per_chunk=chunk, log_every_seconds=1e9, processor_class=ChunkProcessor)
        return sorted(record for path in paths for record in framed_records(path))

    assert records(2) == records(5)


def framed_records(path):
    """The records of a TFRecord file (length, its CRC, data, its CRC)."""
    data, records, at = open(path, "rb").read(), [], 0
    while at < len(data):
        length = int.from_bytes(data[at : at + 8], "little")
        records.append(data[at + 12 : at + 12 + length])
        at += 16 + length
    return records


def test_input_files_are_comma_separated_paths_and_globs(tmp_path, uncased_vocab_file):
    copies = tmp_path / "copies"
    copies.mkdir()
    for name in ("a.txt", "b.txt"):
        (copies / name).write_text(open(CORPUS, encoding="utf-8").read(), encoding="utf-8")
    _, single, _ = generate(tmp_path / "single", uncased_vocab_file)
    _, several, _ = generate(tmp_path / "several", uncased_vocab_file, inputs=f"{CORPUS},{copies}/*.txt")
    assert several["files"] == 3 and several["documents"] == 3 * single["documents"]


def test_every_instance_follows_the_layout(tmp_path, uncased_vocab_file, vocab):
    examples, counts, _ = generate(tmp_path, uncased_vocab_file, dupe_factor=3)
    assert counts["instances"] == len(examples[F.INPUT_IDS]) > 0
    for i, ids in enumerate(examples[F.INPUT_IDS]):
        length = int(examples[F.INPUT_MASK][i].sum())
        assert (examples[F.INPUT_MASK][i, :length] == 1).all() and (ids[length:] == 0).all()
        separators = np.flatnonzero(ids == vocab.sep_id)
        assert ids[0] == vocab.cls_id and len(separators) == 2 and separators[-1] == length - 1
        segments = examples[F.SEGMENT_IDS][i]
        assert (segments[: separators[0] + 1] == 0).all() and (segments[separators[0] + 1 : length] == 1).all()
        weights = examples[F.MASKED_LM_WEIGHTS][i]
        positions = examples[F.MASKED_LM_POSITIONS][i][weights > 0]
        assert len(positions) == min(20, max(1, round(length * 0.15)))
        assert (np.diff(positions) > 0).all() and not np.isin(positions, [0, *separators]).any()
        assert (examples[F.MASKED_LM_IDS][i][weights == 0] == 0).all()
    assert set(np.unique(examples[F.NEXT_SENTENCE_LABELS])) == {0, 1}


def test_max_seq_length_and_max_predictions_set_the_widths(tmp_path, uncased_vocab_file):
    examples, _, _ = generate(tmp_path, uncased_vocab_file, max_seq_length=32, max_predictions_per_seq=3)
    assert examples[F.INPUT_IDS].shape[1] == 32 and examples[F.MASKED_LM_IDS].shape[1] == 3
    assert examples[F.MASKED_LM_WEIGHTS].sum(axis=1).max() == 3


def test_dupe_factor_repeats_the_corpus_with_new_instances(tmp_path, uncased_vocab_file):
    once, counts_once, _ = generate(tmp_path / "one", uncased_vocab_file, dupe_factor=1)
    thrice, counts_thrice, _ = generate(tmp_path / "three", uncased_vocab_file, dupe_factor=3)
    assert counts_thrice["instances"] > 2 * counts_once["instances"]
    assert len({tuple(r) for r in thrice[F.INPUT_IDS]}) > len({tuple(r) for r in once[F.INPUT_IDS]})


def test_masked_lm_prob_sets_the_number_of_targets(tmp_path, uncased_vocab_file):
    examples, _, _ = generate(tmp_path, uncased_vocab_file, masked_lm_prob=0.4, max_predictions_per_seq=64)
    lengths = examples[F.INPUT_MASK].sum(axis=1)
    assert (examples[F.MASKED_LM_WEIGHTS].sum(axis=1) == np.maximum(1, np.rint(lengths * 0.4))).all()


@pytest.mark.parametrize("short_seq_prob", [0.0, 1.0])
def test_short_seq_prob_chooses_short_targets_per_document(tmp_path, uncased_vocab_file, short_seq_prob):
    _, counts, _ = generate(tmp_path, uncased_vocab_file, short_seq_prob=short_seq_prob, dupe_factor=4)
    assert counts.get("short_targets", 0) == short_seq_prob * counts["documents"] * 4


def test_do_lower_case_false_keeps_case(tmp_path, uncased_vocab_file, vocab):
    lower, _, _ = generate(tmp_path / "lower", uncased_vocab_file, masked_lm_prob=0.0)
    cased, _, _ = generate(tmp_path / "cased", uncased_vocab_file, do_lower_case=False, masked_lm_prob=0.0)
    unknown = [
        (e[F.INPUT_IDS] == vocab.unk_id).sum() + (e[F.MASKED_LM_IDS] == vocab.unk_id).sum() for e in (lower, cased)
    ]
    assert unknown[0] == 0 and unknown[1] > 0


def masked_words_are_whole(examples, vocab):
    continuation = np.array([t.startswith("##") for t in vocab.id_to_token])
    for ids, labels, positions, weights in zip(
        examples[F.INPUT_IDS], examples[F.MASKED_LM_IDS], examples[F.MASKED_LM_POSITIONS], examples[F.MASKED_LM_WEIGHTS]
    ):
        original = ids.copy()
        original[positions[weights > 0]] = labels[weights > 0]
        masked = set(positions[weights > 0].tolist())
        for p in range(1, len(original) - 1):
            if continuation[original[p]] and original[p - 1] not in (vocab.cls_id, vocab.sep_id):
                if (p in masked) != (p - 1 in masked):
                    return False
    return True


def test_whole_word_masking_masks_every_piece_of_a_word(tmp_path, uncased_vocab_file, vocab):
    pieces, _, _ = generate(tmp_path / "pieces", uncased_vocab_file, dupe_factor=10)
    words, _, _ = generate(tmp_path / "words", uncased_vocab_file, dupe_factor=10, do_whole_word_mask=True)
    assert masked_words_are_whole(words, vocab)
    assert not masked_words_are_whole(pieces, vocab)


def test_max_ngram_size_masks_runs_of_words(tmp_path, uncased_vocab_file, vocab):
    with pytest.raises(ValueError, match="do_whole_word_mask"):
        make_config(max_ngram_size=3)

    def longest_run(examples):
        runs = []
        for positions, weights in zip(examples[F.MASKED_LM_POSITIONS], examples[F.MASKED_LM_WEIGHTS]):
            chosen = positions[weights > 0]
            breaks = np.flatnonzero(np.diff(chosen) != 1)
            runs.append(np.diff(np.concatenate([[-1], breaks, [len(chosen) - 1]])).max())
        return np.mean(runs)

    common = dict(dupe_factor=5, do_whole_word_mask=True, random_seed=3)
    words, _, _ = generate(tmp_path / "words", uncased_vocab_file, **common)
    ngrams, _, _ = generate(tmp_path / "ngrams", uncased_vocab_file, max_ngram_size=3, **common)
    assert masked_words_are_whole(ngrams, vocab)
    assert longest_run(ngrams) > longest_run(words) + 0.5


@pytest.mark.parametrize(
    "mask_rate, random_rate, expected",
    [(1.0, 0.0, {"mask_share": 1.0}), (0.0, 0.0, {"kept_share": 1.0}), (0.0, 1.0, {"mask_share": 0.0})],
)
def test_replacement_rates_are_configurable(tmp_path, uncased_vocab_file, vocab, mask_rate, random_rate, expected):
    examples, _, _ = generate(tmp_path, uncased_vocab_file, mask_token_rate=mask_rate, random_token_rate=random_rate)
    stats = statistics(examples, vocab.mask_id, 64)
    for name, value in expected.items():
        assert stats[name] == pytest.approx(value)
    if random_rate == 1.0:
        assert stats["random_share"] > 0.95


def test_no_nsp_objective_writes_single_segments_without_labels(tmp_path, uncased_vocab_file, vocab):
    examples, counts, _ = generate(tmp_path, uncased_vocab_file, objective="mlm")
    assert F.NEXT_SENTENCE_LABELS not in examples
    assert (examples[F.SEGMENT_IDS] == 0).all()
    lengths = examples[F.INPUT_MASK].sum(axis=1)
    assert ((examples[F.INPUT_IDS] == vocab.sep_id).sum(axis=1) == 1).all()
    assert (examples[F.INPUT_IDS][np.arange(len(lengths)), lengths - 1] == vocab.sep_id).all()
    assert counts["full_length"] > 0 and counts.get("random_next", 0) == 0


def test_left_to_right_objective_targets_the_next_token(tmp_path, uncased_vocab_file, vocab):
    examples, _, _ = generate(tmp_path, uncased_vocab_file, objective="ltr", max_seq_length=48)
    assert F.NEXT_SENTENCE_LABELS not in examples
    ids = examples[F.INPUT_IDS]
    assert examples[F.MASKED_LM_IDS].shape == ids.shape and not (ids == vocab.mask_id).any()
    lengths = examples[F.INPUT_MASK].sum(axis=1)
    for row, length in enumerate(lengths):
        weights = examples[F.MASKED_LM_WEIGHTS][row]
        assert weights.sum() == length - 1
        np.testing.assert_array_equal(examples[F.MASKED_LM_POSITIONS][row][: length - 1], np.arange(length - 1))
        np.testing.assert_array_equal(examples[F.MASKED_LM_IDS][row][: length - 1], ids[row, 1:length])


def test_statistics_follow_the_algorithm_on_the_fixture(tmp_path, uncased_vocab_file, vocab):
    examples, counts, _ = generate(tmp_path, uncased_vocab_file, max_seq_length=128, dupe_factor=40)
    stats = statistics(examples, vocab.mask_id, 128)
    lengths = examples[F.INPUT_MASK].sum(axis=1)
    expected_share = np.minimum(20, np.maximum(1, np.rint(lengths * 0.15))).sum() / lengths.sum()
    assert stats["target_share_of_tokens"] == pytest.approx(expected_share)
    assert stats["target_share_of_tokens"] == pytest.approx(0.15, abs=0.01)
    assert stats["mask_share"] == pytest.approx(0.8, abs=0.03)
    assert stats["kept_share"] == pytest.approx(0.1, abs=0.03)
    assert counts["short_targets"] / (counts["documents"] * 40) == pytest.approx(0.1, abs=0.05)


def test_blank_and_token_less_lines_and_single_sentence_documents(tmp_path, uncased_vocab_file, vocab):
    text = "\n\n  \n\x00\x01\nOnly one sentence here.\n\n\n\t\nAnother lone sentence.\n\x07\n\n"
    examples, counts, _ = generate(tmp_path, uncased_vocab_file, inputs=write_text(tmp_path, "c.txt", text))
    assert counts["documents"] == 2 and counts["single_sentence_documents"] == 2
    assert counts["lines_without_tokens"] == 2
    # With one sentence per document, B always comes from the other document.
    assert (examples[F.NEXT_SENTENCE_LABELS] == 1).all()


def test_invalid_utf8_is_replaced_and_counted(tmp_path, uncased_vocab_file, vocab):
    text = b"Caf\xc3\xa9 au lait is good.\nA broken \xff\xfebyte line.\n\nNext document.\nMore text.\n"
    examples, counts, _ = generate(
        tmp_path, uncased_vocab_file, inputs=write_text(tmp_path, "c.txt", text), masked_lm_prob=0.0
    )
    assert counts["invalid_utf8_lines"] == 1
    tokens = set(vocab.to_tokens(np.unique(examples[F.INPUT_IDS]).tolist()))
    assert {"cafe", "broken", "byte"} <= tokens


def test_a_line_longer_than_a_sequence_is_truncated(tmp_path, uncased_vocab_file):
    long_line = " ".join(["word"] * 300)
    text = f"{long_line}\nShort follow-up sentence.\n\nSecond document here.\nAnd its end.\n"
    examples, counts, _ = generate(tmp_path, uncased_vocab_file, inputs=write_text(tmp_path, "c.txt", text))
    assert counts["long_lines"] == 1
    assert examples[F.INPUT_MASK].sum(axis=1).max() == 64


def test_missing_input_or_vocab_is_a_clear_error_and_writes_nothing(tmp_path, uncased_vocab_file):
    with pytest.raises(CorpusError, match="nope.txt"):
        generate(tmp_path, uncased_vocab_file, inputs=f"{CORPUS},{tmp_path}/nope.txt")
    with pytest.raises(CorpusError, match=r"none-\*"):
        generate(tmp_path, uncased_vocab_file, inputs=str(tmp_path / "none-*"))
    with pytest.raises(VocabError, match="missing_vocab.txt"):
        generate(tmp_path, str(tmp_path / "missing_vocab.txt"))
    assert list(tmp_path.iterdir()) == []


def run_create_pretraining_data(*flags, cwd=None):
    """The command line as a user runs it, in its own process."""
    return warm_python.run([sys.executable, os.path.join(ROOT, "create_pretraining_data.py"), *flags],
                           capture_output=True, text=True, timeout=60, cwd=cwd)


def test_command_line_writes_shards_and_a_summary(tmp_path, uncased_vocab_file):
    output = tmp_path / "cli.tfrecord"
    result = run_create_pretraining_data(
        f"--input_file={CORPUS}", f"--output_file={output}", f"--vocab_file={uncased_vocab_file}",
        "--output_shards=3", "--dupe_factor=3", "--max_seq_length=64", "--max_predictions_per_seq=10",
        cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    shards = sorted(os.listdir(tmp_path))
    assert shards == [".cli.tfrecord.metadata.json"] + [f"cli.tfrecord-0000{i}-of-00003" for i in range(3)]
    assert "instances/s" in result.stderr and "LM targets" in result.stderr
    assert f"{output}-00002-of-00003: " in result.stderr and "not written" not in result.stderr
    assert "tensorflow" not in result.stderr.lower()


def test_shards_without_records_are_not_written_and_readers_skip_empty_ones(tmp_path, uncased_vocab_file, caplog):
    from data.pretraining.dataset import pretraining_dataset

    corpus = write_text(tmp_path, "two.txt", "The first sentence.\nThe second one.\n")
    paths = output_paths(str(tmp_path / "out" / "out.tfrecord"), 4)
    counts = write_pretraining_data(corpus, paths, uncased_vocab_file, make_config(dupe_factor=1),
                                    log_every_seconds=1e9, processor_class=ChunkProcessor)
    written = [p for p, n in zip(paths, counts["records_per_shard"]) if n]
    assert 0 < len(written) < 4 and sum(counts["records_per_shard"]) == counts["instances"]
    names = [os.path.basename(p) for p in written]
    assert sorted(os.listdir(tmp_path / "out")) == [".out.tfrecord.metadata.json"] + names
    empty = next(p for p in paths if p not in written)
    open(empty, "wb").close()  # an empty shard, as older versions wrote them
    with caplog.at_level("WARNING"):
        dataset = pretraining_dataset(f"{tmp_path}/out/out.tfrecord-*", 8, 64, 20)
        assert sum(len(batch[F.INPUT_IDS]) for batch in dataset) == counts["instances"]
    assert f"{empty}: no records, skipped" in caplog.text


def test_command_line_reports_a_missing_file(tmp_path, uncased_vocab_file):
    result = run_create_pretraining_data(
        f"--input_file={tmp_path}/absent.txt", f"--output_file={tmp_path}/x.tfrecord",
        f"--vocab_file={uncased_vocab_file}")
    assert result.returncode != 0 and "absent.txt" in result.stderr


def test_a_corpus_without_documents_is_an_error_and_writes_nothing(tmp_path, uncased_vocab_file):
    corpus = write_text(tmp_path, "blank.txt", "\n  \n\x00\x01\n\n\t\n")
    with pytest.raises(CorpusError, match=r"no documents in .*blank\.txt"):
        generate(tmp_path, uncased_vocab_file, inputs=corpus, shards=2)
    assert sorted(os.listdir(tmp_path)) == ["blank.txt"]


def test_command_line_fails_on_a_corpus_without_documents(tmp_path, uncased_vocab_file):
    corpus = write_text(tmp_path, "empty.txt", "")
    result = run_create_pretraining_data(
        f"--input_file={corpus}", f"--output_file={tmp_path}/x.tfrecord",
        f"--vocab_file={uncased_vocab_file}")
    assert result.returncode != 0 and "no documents in" in result.stderr and "empty.txt" in result.stderr
    assert sorted(os.listdir(tmp_path)) == ["empty.txt"]
