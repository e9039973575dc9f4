"""export_meta.json records the encoder family and its config generically, still
writes `bert_config` for BERT's readers, and reads older files (only
`bert_config`) exactly as before; errors name the file and the field."""

import json
import os

import pytest

from contracts import registry
from export.export_meta import ExportMeta, ExportMetaError, read_export_meta, write_export_meta
from tests.tiny_config import TINY_CONFIG


@pytest.fixture()
def written(tmp_path, uncased_vocab_file):
    meta = ExportMeta("classification", TINY_CONFIG, uncased_vocab_file, max_seq_length=32,
                      label_list=("a", "b"))
    path = write_export_meta(str(tmp_path), meta)
    return meta, path


def _rewrite(path, change):
    with open(path) as f:
        values = json.load(f)
    change(values)
    with open(path, "w") as f:
        json.dump(values, f)


def test_family_and_config_are_recorded_with_bert_config_for_bert_readers(written, tmp_path):
    meta, path = written
    with open(path) as f:
        values = json.load(f)
    assert values["encoder_family"] == "bert" == meta.encoder_family
    assert values["encoder_config"] == TINY_CONFIG.to_dict() == values["bert_config"]
    assert list(values)[:5] == ["format_version", "task", "encoder_family", "encoder_config",
                                "bert_config"]
    assert os.path.isfile(tmp_path / "vocab.txt")
    read = read_export_meta(str(tmp_path))
    assert read.encoder_config == TINY_CONFIG and read.text_side().family == "bert"
    assert read.vocab_file == os.path.join(str(tmp_path), "vocab.txt")


def test_older_files_with_only_bert_config_read_as_before(written, tmp_path):
    meta, path = written
    _rewrite(path, lambda v: [v.pop("encoder_family"), v.pop("encoder_config")])
    read = read_export_meta(str(tmp_path))
    assert read == ExportMeta("classification", TINY_CONFIG,
                              os.path.join(str(tmp_path), "vocab.txt"), max_seq_length=32,
                              label_list=("a", "b"), task_model=meta.task_model)


@pytest.mark.parametrize("earlier, task, fields", [
    ("regression", "classification", {"label_list": None}),
    ("ner", "tagging", {}),
    ("squad", "question_answering", {"label_list": None, "doc_stride": 128, "squad": {
        "max_query_length": 64, "n_best_size": 20, "max_answer_length": 30,
        "version_2_with_negative": False, "null_score_diff_threshold": 0.0}})])
def test_task_names_of_earlier_versions_are_read_as_todays(written, tmp_path, earlier, task, fields):
    _, path = written
    _rewrite(path, lambda v: v.update({"task": earlier, **fields}))
    assert read_export_meta(str(tmp_path)).task == task
    write_export_meta(str(tmp_path), read_export_meta(str(tmp_path)))
    with open(path) as f:
        assert json.load(f)["task"] == task


def test_an_unknown_task_is_named_with_the_registered_ones(written, tmp_path):
    _, path = written
    _rewrite(path, lambda v: v.update({"task": "summarization"}))
    with pytest.raises(ExportMetaError, match=r"export_meta.json: unknown task 'summarization'; "
                                              r"registered: classification, question_answering"):
        read_export_meta(str(tmp_path))


def test_causal_attention_travels_in_the_encoder_config(tmp_path, uncased_vocab_file):
    causal = TINY_CONFIG.replace(causal_attention=True)
    path = write_export_meta(str(tmp_path), ExportMeta("classification", causal,
                                                       uncased_vocab_file, max_seq_length=32,
                                                       label_list=("a", "b")))
    with open(path) as f:
        values = json.load(f)
    assert values["encoder_config"]["causal_attention"] is True and "causal_attention" not in values
    assert read_export_meta(str(tmp_path)).encoder_config == causal


def test_older_files_with_causal_attention_beside_the_config_read_it_into_it(written, tmp_path):
    _, path = written
    _rewrite(path, lambda v: v.update(causal_attention=True))
    assert read_export_meta(str(tmp_path)).encoder_config == TINY_CONFIG.replace(
        causal_attention=True)
    _rewrite(path, lambda v: v.update(causal_attention=False))
    assert read_export_meta(str(tmp_path)).encoder_config == TINY_CONFIG


def test_encoder_config_alone_is_enough(written, tmp_path):
    _, path = written
    _rewrite(path, lambda v: v.pop("bert_config"))
    assert read_export_meta(str(tmp_path)).encoder_config == TINY_CONFIG


@pytest.mark.parametrize("change, message", [
    (lambda v: v.update(encoder_family="t5"),
     r"export_meta.json: encoder_family 't5' is not one of"),
    (lambda v: [v.pop("encoder_config"), v.pop("bert_config")],
     "export_meta.json: encoder_config is missing"),
    (lambda v: v.update(bert_config={**v["bert_config"], "hidden_size": 64}),
     "export_meta.json: bert_config differs from encoder_config"),
    (lambda v: [v.pop("bert_config"), v["encoder_config"].update(hidden_sizes=3)],
     r"export_meta.json: encoder_config: unknown key\(s\) \['hidden_sizes'\]"),
    (lambda v: [v.pop("encoder_config"), v["bert_config"].update(hidden_sizes=3)],
     r"export_meta.json: bert_config: unknown key\(s\) \['hidden_sizes'\]"),
])
def test_errors_name_the_file_and_field(written, tmp_path, change, message):
    _, path = written
    _rewrite(path, change)
    with pytest.raises(ExportMetaError, match=message):
        read_export_meta(str(tmp_path))


def test_families_by_name():
    assert registry.family_of(TINY_CONFIG).name == "bert" and registry.family("bert").config_type is type(TINY_CONFIG)
    assert registry.config_from_dict("bert", TINY_CONFIG.to_dict(), "x.json") == TINY_CONFIG
    with pytest.raises(ValueError, match="x.json: unknown model family 't5'; registered: bert, xlnet, gpt"):
        registry.config_from_dict("t5", {}, "x.json")
    with pytest.raises(registry.UnknownFamilyError, match="no model family has a dict; registered "
                                                         "config types: BertConfig, XLNetConfig"):
        registry.family_of({})


def test_a_taggers_tag_scheme_is_recorded_and_older_files_read_as_chunks(tmp_path, uncased_vocab_file):
    meta = ExportMeta("tagging", TINY_CONFIG, uncased_vocab_file, max_seq_length=32, label_list=("DT", "NN"),
                      doc_stride=64, tag_scheme="tags")
    path = write_export_meta(str(tmp_path), meta)
    with open(path) as f:
        assert json.load(f)["tag_scheme"] == "tags"
    assert read_export_meta(str(tmp_path)).tag_scheme == "tags"
    _rewrite(path, lambda v: v.pop("tag_scheme"))
    assert read_export_meta(str(tmp_path)).tag_scheme is None  # chunks, as before the field
    with pytest.raises(ExportMetaError, match="tag_scheme 'pos': task 'tagging' takes one of"):
        ExportMeta("ner", TINY_CONFIG, uncased_vocab_file, max_seq_length=32, label_list=("a",),
                   tag_scheme="pos")
