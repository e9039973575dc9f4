"""What the comparison has finished, one JSON file per unit of work under
`<output_dir>/units/`, written atomically when the unit ends: a rerun after a
kill skips every unit found there and redoes only the one that was cut short
(whose runner resumes from its own checkpoints)."""

import json
import os
import time

from utils.files import atomic_write_text


class Ledger:
    def __init__(self, output_dir):
        self.directory = os.path.join(output_dir, "units")

    def _path(self, unit):
        return os.path.join(self.directory, unit.replace("/", "__") + ".json")

    def get(self, unit):
        """The record of a finished unit, or None."""
        path = self._path(unit)
        if not os.path.exists(path):
            return None
        with open(path, encoding="utf-8") as f:
            return json.load(f)

    def record(self, unit, result, seconds):
        entry = {"unit": unit, "seconds": seconds, "ended": time.time(), "result": result}
        atomic_write_text(self._path(unit), json.dumps(entry, indent=1, sort_keys=True) + "\n")
        return entry

    def entries(self):
        """Every finished unit's record, by unit name."""
        if not os.path.isdir(self.directory):
            return {}
        found = {}
        for name in sorted(os.listdir(self.directory)):
            if name.endswith(".json"):
                path = os.path.join(self.directory, name)
                with open(path, encoding="utf-8") as f:
                    entry = json.load(f)
                entry.setdefault("ended", os.path.getmtime(path))  # written when the unit ended
                found[entry["unit"]] = entry
        return found


def wall_seconds(entries):
    """Seconds during which some unit ran: the union of the units' [end -
    seconds, end] spans. Fine-tuning runs side by side overlap, so the units'
    own times add up to more; the pauses of a resumed comparison count for
    nothing."""
    total, start, end = 0.0, None, None
    for begin, finish in sorted((e["ended"] - e["seconds"], e["ended"]) for e in entries.values()):
        if end is None or begin > end:
            total += 0.0 if end is None else end - start
            start, end = begin, finish
        else:
            end = max(end, finish)
    return total + (0.0 if end is None else end - start)
