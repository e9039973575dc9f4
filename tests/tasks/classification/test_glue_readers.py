"""GLUE / XNLI / custom readers on fixtures in each task's exact file layout,
bad rows, and the features written for them."""

import os

import numpy as np
import pytest

from data.text.segments import truncate_pair
from data.text.text_side import as_text_side
from data.text.tokenization import FullTokenizer
from tasks.classification.custom_reader import CustomReader
from tasks.classification.examples import BadRowError
from tasks.classification.features import cached_tfrecord, encode_examples, parse_batch
from tasks.classification.glue_readers import GLUE_TASKS, GlueReader, glue_task
from tests.conftest import FIXTURES, shared_path


def fixture_dir(task):
    return os.path.join(FIXTURES, f"glue_{task}")


# (task, split) -> (number of examples, first example's (guid, text_a, text_b, label))
EXPECTED = {
    ("cola", "train"): (3, ("train-0", 'Our friends won\'t buy "this" analysis.', None, "1")),
    ("cola", "dev"): (2, ("dev-0", "The sailors rode the breeze clear of the rocks.", None, "1")),
    ("cola", "test"): (2, ("0", "Bill whistled past the house.", None, None)),
    ("sst-2", "train"): (3, ("train-0", "a gorgeous , witty , seductive movie . ", None, "1")),
    ("sst-2", "test"): (2, ("0", "uneasy mishmash of styles and genres .", None, None)),
    ("mrpc", "train"): (3, ("train-0",
                            'Amrozi accused his brother, whom he called "the witness", of '
                            "distorting evidence.",
                            'Referring to him as only "the witness", Amrozi accused his brother '
                            "of distorting evidence.", "1")),
    ("mrpc", "dev"): (2, ("dev-0", "He said the pie business doesn't fit the company's strategy.",
                          '"The pie business does not fit our strategy.', "1")),
    ("mrpc", "test"): (2, ("0", "The chief operating officer will report directly to Mr So.",
                           "The chief operating officer will report to So.", None)),
    ("qqp", "train"): (2, ("133273", "How is the life of a math student?",
                           "Which level of prepration is enough for the exam?", "0")),
    ("qqp", "test"): (2, ("0", "How does the Surface Pro himself 4 compare with iPad Pro?",
                          "Why did Microsoft choose core m3 and not core i3?", None)),
    ("sts-b", "train"): (3, ("0", "A plane is taking off.", "An air plane is taking off.", 5.0)),
    ("sts-b", "dev"): (2, ("0", "A man with a hard hat is dancing.",
                           "A man wearing a hard hat is dancing.", 5.0)),
    ("sts-b", "test"): (2, ("0", "A girl is styling her hair.", "A girl is brushing her hair.",
                            None)),
    ("mnli", "train"): (30, ("0", "The cat walked to the market on monday.",
                             "The cat walked to the market.", "entailment")),
    ("mnli", "dev_matched"): (9, ("30", "The teacher cooked dinner on friday.",
                                  "The teacher cooked dinner.", "entailment")),
    ("mnli", "dev_mismatched"): (6, ("40", "The cat walked to the market on monday.",
                                     "The cat was probably happy that day.", "neutral")),
    ("mnli", "test_matched"): (5, ("0", "The cat walked to the market on monday.",
                                   "The cat was probably happy that day.", None)),
    ("mnli", "test_mismatched"): (4, ("0", "The cat walked to the market on monday.",
                                      "The cat was probably happy that day.", None)),
    ("qnli", "train"): (2, ("0", "What came into force after the new constitution was herald?",
                            "As of that day, the new constitution heralding the Second Republic "
                            "came into force.", "entailment")),
    ("rte", "dev"): (2, ("0", "The drain is clogged with hair.", "The hair has to be cleaned.",
                         "not_entailment")),
    ("wnli", "test"): (2, ("0", "Mangla was summoned after the first witness in the case.",
                           "Shukla is related to Mangla.", None)),
    ("xnli", "train"): (3, ("train-0", "他说，妈妈，我回来了。", "校车把他放下后，他立即给他妈妈打了电话。",
                            "neutral")),
    ("xnli", "dev"): (2, ("dev-0", "嗯，我根本没想过，但是我很沮丧。", "我还没有和他再次谈论。",
                          "contradiction")),
}


@pytest.mark.parametrize("task,split", sorted(EXPECTED))
def test_glue_layouts(task, split):
    data = GlueReader(task, fixture_dir(task)).read(split)
    count, (guid, text_a, text_b, label) = EXPECTED[task, split]
    first = data.examples[0]
    assert len(data.examples) == count and not data.skipped
    assert (first.guid, first.text_a, first.text_b, first.label) == (guid, text_a, text_b, label)
    assert first.source.startswith(data.path + ":")


def test_every_split_of_every_task_reads():
    for name, task in GLUE_TASKS.items():
        reader = GlueReader(name, fixture_dir(name))
        for split in task.splits:
            examples = reader.read(split).examples
            assert examples, (name, split)
            labels = {e.label for e in examples}
            if split.startswith("test") and name != "xnli":
                assert labels == {None}
            elif task.is_regression:
                assert all(0.0 <= v <= 5.0 for v in labels)
            else:
                assert labels <= set(task.label_list)


def test_source_line_numbers_count_header_and_bom():
    mrpc = GlueReader("MRPC", fixture_dir("mrpc")).read("train")
    assert [e.source.rsplit(":", 1)[1] for e in mrpc.examples] == ["2", "3", "4"]
    cola = GlueReader("CoLA", fixture_dir("cola")).read("train")  # no header
    assert cola.examples[0].source.endswith("train.tsv:1")


def test_task_names_and_splits():
    assert glue_task("SST-2") is glue_task("sst2") is GLUE_TASKS["sst-2"]
    assert glue_task("STS-B").is_regression
    mnli = GlueReader("MNLI", fixture_dir("mnli"))
    assert mnli.eval_splits == ("dev_matched", "dev_mismatched")
    assert mnli.test_splits == ("test_matched", "test_mismatched")
    with pytest.raises(ValueError, match="unknown task 'glu'"):
        glue_task("glu")
    with pytest.raises(ValueError, match="no split 'dev'"):
        mnli.read("dev")
    with pytest.raises(FileNotFoundError, match="sst-2 test file not found"):
        GlueReader("SST-2", os.path.join(fixture_dir("sst-2"), "missing")).read("test")


def test_xnli_language_and_label_alias():
    zh = GlueReader("xnli", fixture_dir("xnli")).read("train")
    assert [e.label for e in zh.examples] == ["neutral", "contradiction", "entailment"]
    fr = GlueReader("xnli", fixture_dir("xnli"), language="fr")
    assert [e.text_a for e in fr.read("dev").examples] == ["Eh bien, je ne pensais même pas à cela."]


def _write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def test_bad_rows_name_file_and_line_or_are_skipped(tmp_path):
    _write(tmp_path / "train.tsv",
           "index\tsentence1\tsentence2\tlabel\n"
           "0\tA man sleeps.\tSomeone rests.\tentailment\n"
           "1\tOnly one sentence\n"
           "2\tA man sleeps.\tA man runs.\tmaybe\n"
           "3\t  \tA man runs.\tnot_entailment\n"
           "4\tA man sleeps.\t\tnot_entailment\n"
           "5\tA cat sleeps.\tAn animal rests.\tentailment\n")
    path = str(tmp_path / "train.tsv")
    with pytest.raises(BadRowError, match=f"{path}:3: missing column 2 .*2 columns"):
        GlueReader("RTE", str(tmp_path)).read("train")
    data = GlueReader("RTE", str(tmp_path), skip_bad_rows=True).read("train")
    assert [e.guid for e in data.examples] == ["0", "5"]
    assert [s.split(": ", 1)[0] for s in data.skipped] == [f"{path}:{n}" for n in (3, 4, 5, 6)]
    assert "label 'maybe' is not one of ['entailment', 'not_entailment']" in data.skipped[1]
    assert "empty text (first sentence)" in data.skipped[2]
    assert "empty text (second sentence)" in data.skipped[3]


def test_bad_regression_label(tmp_path):
    header = "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore\n"
    _write(tmp_path / "dev.tsv", header + "0\tg\tf\ty\t1\tn\tn\tA b.\tC d.\tfive\n")
    with pytest.raises(BadRowError, match=r"dev.tsv:2: label 'five' is not a finite number"):
        GlueReader("STS-B", str(tmp_path)).read("dev")


def test_sts_b_labels_outside_zero_to_five_are_rejected(tmp_path):
    header = "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore\n"
    rows = [f"{i}\tg\tf\ty\t1\tn\tn\tA b.\tC d.\t{score}\n"
            for i, score in enumerate(["0", "5.000", "5.2", "-0.1", "2.5"])]
    _write(tmp_path / "dev.tsv", header + "".join(rows))
    path = str(tmp_path / "dev.tsv")
    with pytest.raises(BadRowError, match=f"{path}:4: label '5.2' is outside \\[0, 5\\]"):
        GlueReader("STS-B", str(tmp_path)).read("dev")
    data = GlueReader("STS-B", str(tmp_path), skip_bad_rows=True).read("dev")
    assert [e.label for e in data.examples] == [0.0, 5.0, 2.5]
    assert [s.split(": ", 1)[0] for s in data.skipped] == [f"{path}:4", f"{path}:5"]


@pytest.mark.parametrize("task, text", [
    ("SST-2", ""),
    ("SST-2", "sentence\tlabel\n"),
    ("CoLA", "\n\n"),
    ("RTE", "\ufeffindex\tsentence1\tsentence2\tlabel\r\n"),
])
def test_a_split_without_examples_is_an_error_naming_the_file(tmp_path, task, text):
    _write(tmp_path / "train.tsv", text)
    with pytest.raises(BadRowError, match=f"{tmp_path / 'train.tsv'}: no examples$"):
        GlueReader(task, str(tmp_path)).read("train")


def test_a_split_whose_rows_are_all_bad_has_no_examples(tmp_path):
    _write(tmp_path / "train.tsv", "sentence\tlabel\nfine\t7\n")
    with pytest.raises(BadRowError, match=r"train.tsv: no examples \(1 bad rows skipped\)"):
        GlueReader("SST-2", str(tmp_path), skip_bad_rows=True).read("train")
    _write(tmp_path / "dev.csv", "text,label\n")
    with pytest.raises(BadRowError, match=r"dev.csv: no examples"):
        CustomReader(str(tmp_path), "text", label_list=["a", "b"]).read("dev")


def test_custom_csv_quoting_ids_and_unlabelled_test():
    reader = CustomReader(os.path.join(FIXTURES, "custom_csv"), text_a_column="review",
                          label_column="stars", id_column="id")
    assert reader.label_list == ("bad", "good")
    train = reader.read("train").examples
    assert [e.text_a for e in train] == ["Great food, friendly staff.",
                                        "Cold soup.\nWe will not come back.",
                                        'The "special" was fine']
    assert [e.source.rsplit(":", 1)[1] for e in train] == ["2", "3", "5"]
    assert [e.label for e in train] == ["good", "bad", "good"]
    test = reader.read("test").examples
    assert [(e.guid, e.label) for e in test] == [("r6", None), ("r7", None)]


def test_custom_jsonl_pairs_and_given_labels():
    directory = os.path.join(FIXTURES, "custom_jsonl")
    reader = CustomReader(directory, "premise", "gold", text_b_column="hypothesis",
                          label_list=["0", "1", "2"])
    first = reader.read("train").examples[0]
    assert (first.guid, first.text_a, first.text_b, first.label) == \
        ("train-0", "A dog runs.", "An animal moves.", "2")
    regression = CustomReader(directory, "premise", "gold", text_b_column="hypothesis",
                              regression=True)
    assert regression.label_list is None and regression.read("dev").examples[0].label == 2.0


def test_custom_tsv_and_errors(tmp_path):
    _write(tmp_path / "train.tsv", "text\tlabel\nfine\tpos\n\"odd\" quote\tneg\nno label\n")
    reader = CustomReader(str(tmp_path), "text")
    with pytest.raises(BadRowError, match=r"train.tsv:4: missing column 'label'"):
        reader.read("train")
    skipping = CustomReader(str(tmp_path), "text", skip_bad_rows=True)
    assert [e.text_a for e in skipping.read("train").examples] == ["fine", '"odd" quote']
    with pytest.raises(BadRowError, match=r"train.tsv:1: no column 'sentence'"):
        CustomReader(str(tmp_path), "sentence").read("train")
    _write(tmp_path / "dev.jsonl", '{"text": "ok", "label": "pos"}\n[1, 2]\n')
    with pytest.raises(BadRowError, match=r"dev.jsonl:2: expected a JSON object"):
        reader.read("dev")
    _write(tmp_path / "test.csv", "text\nx\n")
    _write(tmp_path / "test.jsonl", "{}\n")
    with pytest.raises(FileNotFoundError, match="more than one file"):
        reader.read("test")


def test_features_pack_and_truncate_longest_first(uncased_vocab_file, tmp_path):
    tokenizer = FullTokenizer(uncased_vocab_file, do_lower_case=True)
    examples = GlueReader("MRPC", fixture_dir("mrpc")).read("train").examples
    features = encode_examples(examples, tokenizer, 24, ("0", "1"))
    word_ids, type_ids = features.inputs["input_word_ids"], features.inputs["input_type_ids"]
    assert word_ids.shape == (3, 24) and features.num_truncated == 3
    ids_a, ids_b = truncate_pair(tokenizer.encode(examples[0].text_a),
                                 tokenizer.encode(examples[0].text_b), 24 - 3)
    vocab = tokenizer.vocab
    assert word_ids[0].tolist() == [vocab.cls_id, *ids_a, vocab.sep_id, *ids_b, vocab.sep_id]
    assert type_ids[0].tolist() == [0] * (len(ids_a) + 2) + [1] * (len(ids_b) + 1)
    assert features.label_ids.tolist() == [1, 0, 1]

    # Written once, reused when nothing changed, rewritten when the length changes.
    args = (examples, tokenizer, uncased_vocab_file, True)
    path = cached_tfrecord(str(tmp_path), "mrpc-train", args[0], *args[1:], 24, ("0", "1"))
    mtime = os.path.getmtime(path)
    assert cached_tfrecord(str(tmp_path), "mrpc-train", *args, 24, ("0", "1")) == path
    assert os.path.getmtime(path) == mtime
    assert cached_tfrecord(str(tmp_path), "mrpc-train", *args, 32, ("0", "1")) != path

    import tensorflow as tf
    records = next(iter(tf.data.TFRecordDataset(path).batch(8)))
    inputs, labels = parse_batch(records, as_text_side(tokenizer).input_shapes(24), regression=False)
    for name, value in features.inputs.items():
        np.testing.assert_array_equal(inputs[name].numpy(), value, err_msg=name)
    np.testing.assert_array_equal(labels["label"].numpy(), [1, 0, 1])
    np.testing.assert_array_equal(labels["example_index"].numpy(), [0, 1, 2])


def test_an_empty_cache_file_is_rewritten_not_reused(uncased_vocab_file, tmp_path):
    tokenizer = FullTokenizer(uncased_vocab_file, do_lower_case=True)
    examples = GlueReader("MRPC", fixture_dir("mrpc")).read("train").examples
    args = (examples, tokenizer, uncased_vocab_file, True, 24, ("0", "1"))
    path = cached_tfrecord(str(tmp_path), "mrpc-train", *args)
    written = open(path, "rb").read()
    open(path, "wb").close()  # as an interrupted in-place write of an earlier version left it
    assert cached_tfrecord(str(tmp_path), "mrpc-train", *args) == path
    assert open(path, "rb").read() == written


@pytest.mark.parametrize("task,counts", [
    ("CoLA", {"train": 8551, "dev": 1043, "test": 1063}),
    ("SST-2", {"train": 67349, "dev": 872}),
    ("MRPC", {"train": 3668, "dev": 408, "test": 1725}),
    ("STS-B", {"train": 5749, "dev": 1500, "test": 1379}),
    ("RTE", {"train": 2490, "dev": 277, "test": 3000}),
])
def test_real_glue_files(task, counts):
    reader = GlueReader(task, shared_path("glue", task))
    for split, count in counts.items():
        data = reader.read(split)
        assert len(data.examples) == count and not data.skipped
