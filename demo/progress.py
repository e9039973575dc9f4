"""Runs one stage of the main job as a child process and shows its progress.

The child's whole output goes to a log file; the console gets one line per
training log interval (step, metrics, examples/s, time left) and, when the
child is quiet, a line every few seconds saying it is still working. A
failing child's last log lines are printed with the error. `StageOutput`
does the same for a stage that is one request to a long-lived process
(`comparisons.workers`).
"""

import os
import queue
import re
import subprocess
import sys
import threading
import time

# The trainer's progress line: "step 150: loss = 6.9, masked_lm_accuracy = 0.05, ..."
_STEP_LINE = re.compile(r"\] step (\d+): (.*)$")
_TRAINING_FROM = re.compile(r"Training from step (\d+) to (\d+)")
_KEY_VALUE = re.compile(r"(\w+) = ([-+0-9.eE]+|nan|inf)")
_SHOWN = {"masked_lm_accuracy": "MLM acc", "lm_accuracy": "LM acc", "next_sentence_accuracy": "NSP acc",
          "accuracy": "acc", "loss": "loss", "perplexity": "ppl"}
HEARTBEAT_SECONDS = 10


class StageError(RuntimeError):
    pass


def progress_line(name, step, total, values, batch_size):
    """One console line for a trainer log line's `values` (a dict of floats)."""
    shown = "  ".join(f"{label} {values[key]:.3f}" for key, label in _SHOWN.items() if key in values)
    speed = values.get("examples_per_second")
    line = f"  {name}: step {step}/{total}  {shown}"
    if speed:
        line += f"  {speed:.0f} examples/s  {format_seconds((total - step) * batch_size / speed)} left"
    return line


def logged_steps(log_path):
    """{step: metrics} of every trainer progress line in a stage's log."""
    steps = {}
    with open(log_path, encoding="utf-8") as log:
        for line in log:
            if match := _STEP_LINE.search(line):
                steps[int(match.group(1))] = {k: float(v) for k, v in _KEY_VALUE.findall(match.group(2))}
    return steps


def last_logged_values(log_path):
    """The metrics of the last trainer progress line in a stage's log (empty if none)."""
    steps = logged_steps(log_path)
    return steps[max(steps)] if steps else {}


def format_seconds(seconds):
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def read_lines(stream, lines):
    """Puts each line of `stream` on the queue `lines`, then None at its end."""
    for line in iter(stream.readline, ""):
        lines.put(line)
    lines.put(None)


class StageOutput:
    """One stage's output lines: each goes to its log file (and the last 30 are
    kept for an error message); a trainer's progress lines become console lines
    with time left, and a quiet stage gets a line every few seconds."""

    def __init__(self, name, log, batch_size=None):
        self.name, self.log, self.batch_size = name, log, batch_size
        self.start = self.last_shown = time.time()
        self.total, self.tail = None, []

    def line(self, line):
        self.log.write(line)
        self.tail = (self.tail + [line])[-30:]
        if match := _TRAINING_FROM.search(line):
            self.total = int(match.group(2))
        elif (match := _STEP_LINE.search(line)) and self.total:
            values = {k: float(v) for k, v in _KEY_VALUE.findall(match.group(2))}
            print(progress_line(self.name, int(match.group(1)), self.total, values, self.batch_size), flush=True)
            self.last_shown = time.time()
        elif time.time() - self.last_shown >= HEARTBEAT_SECONDS:
            self.quiet()

    def quiet(self):
        print(f"  {self.name}: working ({format_seconds(time.time() - self.start)})", flush=True)
        self.last_shown = time.time()

    def follow(self, lines, end):
        """Handles lines from the queue `lines` until `end(line)` is true for one
        (not written) or the queue's None; returns that line."""
        while True:
            try:
                line = lines.get(timeout=HEARTBEAT_SECONDS)
            except queue.Empty:
                self.quiet()
                continue
            if line is None or end(line):
                return line
            self.line(line)


def run_stage(name, args, log_path, cwd, env, batch_size=None):
    """Runs `python args...`; returns its wall time in seconds. Raises StageError on failure."""
    start = time.time()
    print(f"\n=== {name}", flush=True)
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    process = subprocess.Popen([sys.executable, *args], cwd=cwd, env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    lines = queue.Queue()
    threading.Thread(target=read_lines, args=(process.stdout, lines), daemon=True).start()
    try:
        with open(log_path, "w", encoding="utf-8") as log:
            output = StageOutput(name, log, batch_size)
            output.follow(lines, lambda line: False)
    except BaseException:  # interrupted: the child goes too
        process.kill()
        raise
    if process.wait() != 0:
        raise StageError(f"{name} failed (exit {process.returncode}); the end of {log_path}:\n"
                         + "".join(output.tail))
    seconds = time.time() - start
    print(f"  {name}: done in {format_seconds(seconds)}", flush=True)
    return seconds
