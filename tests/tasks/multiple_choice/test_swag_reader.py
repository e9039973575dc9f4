"""SWAG CSV and JSON-lines multiple-choice readers: exact layouts, bad rows named or skipped."""

import os
import re

import pytest

from tasks.multiple_choice.swag_reader import MultipleChoiceFormatError, read_multiple_choice_file
from tests.conftest import FIXTURES


def _fixture(name):
    return os.path.join(FIXTURES, name)


def test_swag_train_csv():
    choice_file = read_multiple_choice_file(_fixture("swag_train.csv"))
    assert choice_file.num_choices == 4 and choice_file.has_labels
    assert [e.label for e in choice_file.examples] == [0, 1, 2, 3, 0, 1, 2, 3]
    first = choice_file.examples[0]
    assert first.example_id == "3101"
    assert first.choice_texts()[0] == ("A man pours flour into a bowl.",
                                       "He cracks two eggs into the flour and stirs.")
    assert choice_file.examples[2].endings[2] == "gets in, starts the engine and drives off."
    assert choice_file.skipped == []


def test_swag_test_csv_has_no_labels():
    choice_file = read_multiple_choice_file(_fixture("swag_test.csv"))
    assert len(choice_file.examples) == 3 and not choice_file.has_labels
    assert all(e.label is None for e in choice_file.examples)
    assert choice_file.examples[0].endings[2] == 'shouts, "goal!", at the screen.'


def test_swag_bad_row_is_an_error_naming_the_line():
    with pytest.raises(MultipleChoiceFormatError,
                       match=r"swag_bad_rows.csv:3: ending 1 is missing"):
        read_multiple_choice_file(_fixture("swag_bad_rows.csv"))


def test_swag_bad_rows_skipped_with_a_count():
    choice_file = read_multiple_choice_file(_fixture("swag_bad_rows.csv"), skip_bad_rows=True)
    assert [e.example_id for e in choice_file.examples] == ["5301", "5305"]
    assert len(choice_file.skipped) == 3
    assert "swag_bad_rows.csv:4: label 4 is out of range" in choice_file.skipped[1]
    assert "swag_bad_rows.csv:5: has 8 fields, the header has 12" in choice_file.skipped[2]


def test_swag_header_checked(tmp_path):
    path = tmp_path / "train.csv"
    path.write_text("id,sent1,sent2,ending0,ending1,label\n1,a,b,c,d,0\n")
    with pytest.raises(MultipleChoiceFormatError, match=r"train.csv:1: header"):
        read_multiple_choice_file(str(path))


def test_swag_line_numbers_count_quoted_newlines(tmp_path):
    with open(_fixture("swag_train.csv"), encoding="utf-8") as f:
        header, first = f.readline(), f.readline()
    bad = '9,v,9,"x","two\nlines",y,gold,,b,c,d,0\n'
    path = tmp_path / "train.csv"
    path.write_text(header + first + bad + first)
    with pytest.raises(MultipleChoiceFormatError, match=r"train.csv:3: ending 0"):
        read_multiple_choice_file(str(path))


def test_jsonl_with_three_choices():
    choice_file = read_multiple_choice_file(_fixture("multiple_choice_3way.jsonl"))
    assert choice_file.num_choices == 3
    examples = choice_file.examples
    assert examples[1].choice_texts()[1] == ("The rain starts to fall.",
                                             "People open their umbrellas.")
    assert examples[0].choice_texts()[0][1] == "Someone pours the water into a teapot."
    assert examples[4].example_id == "5"  # no id: the line number
    assert examples[5].label is None and not choice_file.has_labels


def test_jsonl_bad_rows():
    path = _fixture("multiple_choice_bad_rows.jsonl")
    with pytest.raises(MultipleChoiceFormatError, match=r":2: field 'endings' is missing"):
        read_multiple_choice_file(path)
    choice_file = read_multiple_choice_file(path, skip_bad_rows=True)
    assert [e.example_id for e in choice_file.examples] == ["ok1", "ok2"]
    reasons = [message.split(": ", 1)[1] for message in choice_file.skipped]
    assert reasons == ["field 'endings' is missing", "label 3 is out of range for 3 endings",
                       "not valid JSON (Expecting value)", "has 2 endings, earlier rows have 3"]


@pytest.mark.parametrize("record, reason", [
    ('{"context": "c", "endings": ["a", "b"], "label": true}', "label True is not an integer"),
    ('{"context": "c", "endings": ["a", "b"], "label": 1.5}', "label 1.5 is not an integer"),
    ('{"context": "c", "endings": ["a", " "]}', "ending 1 is missing or empty"),
    ('{"context": "c", "endings": ["a"]}', "needs at least 2 endings"),
    ('{"context": 3, "endings": ["a", "b"]}', "field 'context' is not a str"),
    ('["c", "a", "b"]', "expected a JSON object"),
])
def test_jsonl_field_errors(tmp_path, record, reason):
    path = tmp_path / "dev.jsonl"
    path.write_text(record + "\n")
    with pytest.raises(MultipleChoiceFormatError, match=r"dev.jsonl:1: " + re.escape(reason)):
        read_multiple_choice_file(str(path))


def test_invalid_utf8(tmp_path):
    jsonl = tmp_path / "dev.jsonl"
    jsonl.write_bytes(b'{"context": "c", "endings": ["a", "b"]}\n{"context": "\xff"}\n')
    with pytest.raises(MultipleChoiceFormatError, match=r"dev.jsonl:2: not valid UTF-8"):
        read_multiple_choice_file(str(jsonl))
    csv_file = tmp_path / "val.csv"
    with open(_fixture("swag_train.csv"), "rb") as f:
        csv_file.write_bytes(f.read() + b"9,v,9,x,\xff,y,gold,a,b,c,d,0\n")
    with pytest.raises(MultipleChoiceFormatError, match=r"val.csv: not valid UTF-8"):
        read_multiple_choice_file(str(csv_file))


def test_unknown_extension_and_missing_file(tmp_path):
    path = tmp_path / "train.tsv"
    path.write_text("a\tb\n")
    with pytest.raises(MultipleChoiceFormatError, match="unknown extension"):
        read_multiple_choice_file(str(path))
    with pytest.raises(FileNotFoundError, match="nowhere.csv"):
        read_multiple_choice_file(str(tmp_path / "nowhere.csv"))
