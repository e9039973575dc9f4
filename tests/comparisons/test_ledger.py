"""The ledger's record of each unit and the comparison's wall time from it."""

import os

from comparisons.ledger import Ledger, wall_seconds


def test_wall_time_counts_overlapping_runs_once_and_pauses_not_at_all():
    entries = {"a": {"ended": 10.0, "seconds": 10.0},  # 0-10
               "b": {"ended": 16.0, "seconds": 8.0},   # 8-16, beside a and c
               "c": {"ended": 15.0, "seconds": 4.0},   # 11-15
               "d": {"ended": 120.0, "seconds": 20.0}}  # 100-120, after a pause
    assert wall_seconds(entries) == 16.0 + 20.0
    assert wall_seconds({}) == 0.0


def test_a_record_written_before_end_times_were_kept_ends_when_its_file_was_written(tmp_path):
    ledger = Ledger(str(tmp_path))
    ledger.record("fine_tuning/bert/ner/final/seed_0", {"score": 1.0}, 3.0)
    path = os.path.join(tmp_path, "units", "fine_tuning__bert__ner__final__seed_0.json")
    ended = ledger.entries()["fine_tuning/bert/ner/final/seed_0"]["ended"]
    assert abs(ended - os.path.getmtime(path)) < 5.0
    with open(path, "w", encoding="utf-8") as f:  # as an older comparison wrote it
        f.write('{"unit": "fine_tuning/bert/ner/final/seed_0", "seconds": 3.0, "result": {}}\n')
    os.utime(path, (1000.0, 1000.0))
    assert ledger.entries()["fine_tuning/bert/ner/final/seed_0"]["ended"] == 1000.0
