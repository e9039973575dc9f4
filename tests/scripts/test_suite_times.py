"""scripts/suite_times.py: a JUnit XML's test times summed by folder and module."""

import json

from scripts import suite_times

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="4">
<testcase classname="tests.families.test_every_family" name="test_a[bert]@every_family_bert" time="10.5" />
<testcase classname="tests.families.test_every_family" name="test_b[gpt]@every_family_gpt" time="2.0" />
<testcase classname="tests.runners.test_main.TestSummary" name="test_c" time="30.25" />
<testcase classname="tests.families.bert.test_tokenizer" name="test_d" time="0.5"><skipped /></testcase>
</testsuite></testsuites>
"""


def test_times_are_summed_by_module_and_by_folder_largest_first(tmp_path):
    path = tmp_path / "junit.xml"
    path.write_text(JUNIT, encoding="utf-8")
    found = suite_times.test_cases(str(path))
    cases = [(module, seconds) for module, _, seconds in found]
    assert cases == [("tests/families/test_every_family.py", 10.5), ("tests/families/test_every_family.py", 2.0),
                     ("tests/runners/test_main.py", 30.25), ("tests/families/bert/test_tokenizer.py", 0.5)]
    assert suite_times.totals(cases) == {"tests/runners/test_main.py": (30.25, 1),
                             "tests/families/test_every_family.py": (12.5, 2),
                             "tests/families/bert/test_tokenizer.py": (0.5, 1)}
    assert suite_times.totals(cases, depth=2) == {"tests/runners": (30.25, 1), "tests/families": (13.0, 3)}
    assert suite_times.table("by folder", suite_times.totals(cases, depth=2), limit=1).splitlines()[1].split() == [
        "tests/runners", "30.2", "1"]


def test_modules_zero_lists_every_module(tmp_path, monkeypatch, capsys):
    path = tmp_path / "junit.xml"
    path.write_text(JUNIT, encoding="utf-8")
    for flag, listed in (("--modules=1", 1), ("--modules=0", 3)):
        monkeypatch.setattr("sys.argv", ["suite_times.py", str(path), flag])
        suite_times.main()
        printed = capsys.readouterr().out
        assert sum(line.startswith("tests/") and ".py " in line for line in printed.splitlines()) == listed


def test_the_schedule_holds_every_groups_seconds_longest_first(tmp_path, monkeypatch, capsys):
    """A group a test names (after `@` in its name under `--dist loadgroup`), else its module."""
    path, schedule = tmp_path / "junit.xml", tmp_path / "schedule.json"
    path.write_text(JUNIT, encoding="utf-8")
    monkeypatch.setattr("sys.argv", ["suite_times.py", str(path), f"--schedule={schedule}"])
    suite_times.main()
    assert list(json.loads(schedule.read_text(encoding="utf-8")).items()) == [
        ("tests.runners.test_main", 30.2), ("every_family_bert", 10.5), ("every_family_gpt", 2.0),
        ("tests.families.bert.test_tokenizer", 0.5)]
    assert "every_family_bert" in capsys.readouterr().out
