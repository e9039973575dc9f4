"""The comparison's console: one line as each unit of work starts, with its
place among the units planned and the time left. A unit's estimate is its
calibrated pretraining time, or the mean time of the finished units of its
kind (a task's fine-tuning runs), or of all finished fine-tuning runs; with
`at_once` runs side by side (every unit but the data phase's), a share of it."""

import statistics
import time

from demo.progress import format_seconds


class Progress:
    def __init__(self, at_once=1):
        self.planned = {}  # unit -> (kind, estimate or None)
        self.finished = {}  # unit -> seconds (None: done in an earlier run)
        self.start = time.time()
        self.at_once = at_once

    def plan(self, unit, kind, estimate=None):
        if unit not in self.planned:
            self.planned[unit] = (kind, estimate)

    def _estimate(self, unit):
        kind, estimate = self.planned[unit]
        if estimate is not None:
            return estimate
        same = [s for u, s in self.finished.items() if s is not None and self.planned[u][0] == kind]
        alike = [s for u, s in self.finished.items()
                 if s is not None and self.planned[u][0].split("/")[0] == kind.split("/")[0]]
        return statistics.fmean(same or alike) if (same or alike) else None

    def time_left(self):
        """Seconds the pending units should take, or None while one has no estimate."""
        estimates = [(u, self._estimate(u)) for u in self.planned if u not in self.finished]
        if any(e is None for _, e in estimates):
            return None
        return sum(e / (1 if self.planned[u][0] == "data" else self.at_once) for u, e in estimates)

    def _place(self, unit):
        return f"[{len(self.finished) + 1}/{len(self.planned)}]"

    def begin(self, unit):
        left = self.time_left()
        note = (f"about {format_seconds(left)} left" if left is not None
                else "time left known once each kind of run has been timed")
        print(f"\n{self._place(unit)} {unit}  ({format_seconds(time.time() - self.start)} so far; {note})",
              flush=True)

    def end(self, unit, seconds):
        self.finished[unit] = seconds

    def skip(self, unit):
        print(f"{self._place(unit)} {unit}: done in an earlier run", flush=True)
        self.finished[unit] = None
