"""Runs one stage of the main job as a child process and shows its progress.

The child's whole output goes to a log file; the console gets one line per
training log interval (step, metrics, examples/s, time left) and, when the
child is quiet, a line every few seconds saying it is still working. A
failing child's last log lines are printed with the error. `StageOutput`
does the same for a stage that is one request to a long-lived process
(`comparisons.workers`).
"""

import dataclasses
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


def read_lines(stream, put):
    """Calls `put(line)` for each line of `stream`, then `put(None)` at its end."""
    for line in iter(stream.readline, ""):
        put(line)
    put(None)


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


@dataclasses.dataclass
class Stage:
    """`python args...`, its output to `log_path`; it starts once the stages named in `after`
    ended. `cold`: started as a new interpreter even where the others start warm (its claim is
    about a fresh process)."""
    name: str
    args: list
    batch_size: int = None
    after: tuple = ()
    log_path: str = None
    env: dict = None
    cold: bool = False


def run_stage(name, args, log_path, cwd, env, batch_size=None, warm=None):
    """Runs `python args...`; returns its wall time in seconds. Raises StageError on failure."""
    return run_stages([Stage(name, args, batch_size, log_path=log_path, env=env)], cwd, warm=warm)[name]


def run_stages(stages, cwd, slots=1, warm=None):
    """Runs `stages` (`Stage`s), up to `slots` at once, each in list order once a slot is free
    and the stages it comes after have ended; returns {name: seconds from its start to its end}.
    A failing stage stops the others and raises StageError. `warm`: a `utils.warm_start.WarmStart`
    the stages are forked from (but `cold` ones) instead of each importing TensorFlow anew."""
    lines, running, ended, seconds = queue.Queue(), {}, set(), {}
    waiting = list(stages)
    try:
        while waiting or running:
            for stage in [s for s in waiting if set(s.after) <= ended][:slots - len(running)]:
                waiting.remove(stage)
                running[stage.name] = _start(stage, cwd, lines, None if stage.cold else warm)
            if not running:
                raise ValueError(f"{', '.join(s.name for s in waiting)}: after stages that are not run")
            try:
                name, line = lines.get(timeout=HEARTBEAT_SECONDS)
            except queue.Empty:
                name, line = None, None
            for _, output, _ in running.values():
                if time.time() - output.last_shown >= HEARTBEAT_SECONDS:
                    output.quiet()
            if name is None:
                continue
            process, output, stage = running[name]
            if line is not None:
                output.line(line)
                continue
            output.log.close()
            if process.wait() != 0:
                raise StageError(f"{name} failed (exit {process.returncode}); the end of {stage.log_path}:\n"
                                 + "".join(output.tail))
            seconds[name] = time.time() - output.start
            print(f"  {name}: done in {format_seconds(seconds[name])}", flush=True)
            del running[name]
            ended.add(name)
        return seconds
    finally:  # failed or interrupted: the other children go too
        for process, output, _ in running.values():
            process.kill()
            output.log.close()


def _start(stage, cwd, lines, warm):
    """(process, StageOutput, stage) of `stage` started (forked from `warm` where given), its
    lines put on `lines` as (name, line)."""
    print(f"\n=== {stage.name}", flush=True)
    os.makedirs(os.path.dirname(stage.log_path), exist_ok=True)
    if warm is not None:
        process = warm.popen(stage.args, cwd, stage.env)
    else:
        process = subprocess.Popen([sys.executable, *stage.args], cwd=cwd, env=stage.env, text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = StageOutput(stage.name, open(stage.log_path, "w", encoding="utf-8"), stage.batch_size)
    threading.Thread(target=read_lines, daemon=True, args=(
        process.stdout, lambda line: lines.put((stage.name, line)))).start()
    return process, output, stage
