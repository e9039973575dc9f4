"""tests/suite_schedule.py: the suite's groups go to its workers longest first."""

import json

import pytest

from tests import suite_schedule


class Item:
    def __init__(self, name, group):
        self.name, self.mark = name, pytest.mark.xdist_group(group).mark

    def get_closest_marker(self, name):
        return self.mark if name == "xdist_group" else None


def test_groups_go_longest_first_keeping_each_groups_order_and_unmeasured_ones_last():
    items = [Item("a1", "a"), Item("a2", "a"), Item("new", "unmeasured"), Item("b1", "b"), Item("c1", "c"),
             Item("b2", "b")]
    suite_schedule.longest_first(items, {"a": 3.0, "b": 90.0, "c": 12.5})
    assert [item.name for item in items] == ["b1", "b2", "c1", "a1", "a2", "new"]


def test_the_table_is_measured_seconds_of_groups_this_suite_has():
    with open(suite_schedule.SCHEDULE, encoding="utf-8") as f:
        seconds = json.load(f)
    assert seconds and all(isinstance(v, (int, float)) and v >= 0 for v in seconds.values())
    assert list(seconds.values()) == sorted(seconds.values(), reverse=True)
    assert {"tests.runners.test_main", "tests.comparisons.test_compare_tiny"} <= set(seconds)
