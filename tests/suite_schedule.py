"""The order in which `--dist loadgroup` hands the suite's groups to its two workers:
longest first, by the seconds a CI run measured (`suite_schedule.json`, written by
`scripts/suite_times.py --schedule`). A worker takes the next group when it is free,
so with the long groups first no long one starts last while the other worker idles
(xdist's own order is by number of tests, which put the comparison's few long tests
near the end). Groups not measured yet follow, in collection order; a stale table
changes the order only, never which tests run."""

import json
import os

import pytest

SCHEDULE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "suite_schedule.json")


def group_of(item):
    """The `xdist_group` an item runs in (tests/conftest.py gives every item one)."""
    mark = item.get_closest_marker("xdist_group")
    return str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))


def longest_first(items, seconds=None):
    """Sorts `items` in place, their groups' measured `seconds` (default: the table) longest
    first; a group's items keep their order."""
    if seconds is None:
        with open(SCHEDULE, encoding="utf-8") as f:
            seconds = json.load(f)
    items.sort(key=lambda item: -seconds.get(group_of(item), 0.0))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    """Last, after every group is given (tests/conftest.py) and pytest's own reordering."""
    longest_first(items)
