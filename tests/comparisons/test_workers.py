"""Runs side by side (`Workers.run_all`): at most `slots` at once, each slot's
processes limited to its share of the cores, the first error stopping what
has not started."""

import threading
import time

import pytest

from comparisons.workers import Workers


class Calls:
    """Calls that record how many run at once, each taking `seconds`; the one
    at `failing` raises at once."""

    def __init__(self, count, failing=None, seconds=0.05):
        self.seconds = seconds
        self.lock = threading.Lock()
        self.running = self.most = 0
        self.started = []
        self.calls = [lambda i=i: self.call(i, i == failing) for i in range(count)]

    def call(self, index, fail):
        with self.lock:
            self.started.append(index)
            self.running += 1
            self.most = max(self.most, self.running)
        if not fail:
            time.sleep(self.seconds)
        with self.lock:
            self.running -= 1
        if fail:
            raise RuntimeError(f"call {index} failed")


@pytest.mark.parametrize("slots", [1, 2])
def test_every_call_runs_at_most_slots_at_once(slots):
    calls = Calls(6)
    Workers("/", {}, slots=slots).run_all(calls.calls)
    assert sorted(calls.started) == list(range(6))
    assert calls.most == slots


def test_the_first_error_is_raised_and_stops_the_calls_not_started():
    calls = Calls(8, failing=0, seconds=0.5)
    with pytest.raises(RuntimeError, match="call 0 failed"):
        Workers("/", {}, slots=2).run_all(calls.calls)
    time.sleep(1.0)  # call 1, under way when call 0 failed, ends; nothing starts after it
    assert sorted(calls.started) in ([0], [0, 1])


def test_each_slot_gets_its_share_of_the_cores(monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 4)
    assert "TF_NUM_INTRAOP_THREADS" not in Workers("/", {}, slots=1).env
    env = Workers("/", {"A": "1"}, slots=2).env
    assert (env["A"], env["TF_NUM_INTRAOP_THREADS"], env["TF_NUM_INTEROP_THREADS"]) == ("1", "2", "1")
